/* kabi: kernel interfaces newer than Debian 12's headers (Linux 6.7's
 * PAGEMAP_SCAN, userfaultfd's async write-protect), declared once for the
 * platform probe and the checkpoint module. */
#ifndef QZ_KABI_H
#define QZ_KABI_H

#include <stdint.h>
#include <sys/ioctl.h>

struct kabi_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
struct kabi_page_region {
	uint64_t start, end, categories;
};
#define KABI_PAGEMAP_SCAN _IOWR('f', 16, struct kabi_pm_scan_arg)
#define KABI_PM_SCAN_WP_MATCHING (1ull << 0)
#define KABI_PM_SCAN_CHECK_WPASYNC (1ull << 1)
#define KABI_PAGE_IS_WRITTEN (1ull << 1)
#define KABI_PAGE_IS_PRESENT (1ull << 3)
#define KABI_PAGE_IS_SWAPPED (1ull << 4)

struct kabi_uffd_api { uint64_t api, features, ioctls; };
struct kabi_uffd_register { uint64_t start, len, mode, ioctls; };
#define KABI_UFFD_API 0xAAull
#define KABI_UFFDIO_API _IOWR(0xAA, 0x3F, struct kabi_uffd_api)
#define KABI_UFFDIO_REGISTER _IOWR(0xAA, 0x00, struct kabi_uffd_register)
#define KABI_UFFDIO_REGISTER_MODE_WP (1ull << 1)
#define KABI_UFFD_FEATURE_PAGEFAULT_FLAG_WP (1ull << 0)
#define KABI_UFFD_FEATURE_WP_UNPOPULATED (1ull << 13)
#define KABI_UFFD_FEATURE_WP_ASYNC (1ull << 15)
#define KABI_UFFD_FEATURE_MOVE (1ull << 16)
#define KABI_UFFD_USER_MODE_ONLY 1

#endif
