/* SPDX-License-Identifier: GPL-2.0 */
/* BUG() and WARN(): a broken kernel assertion stops the run through blksim, which reports
 * where it happened (a hang or a silent continue would hide the bug being looked for). */
#ifndef _KCOMPAT_LINUX_BUG_H
#define _KCOMPAT_LINUX_BUG_H

#include <linux/compiler.h>

void kcompat_bug(const char *file, int line, const char *what) __attribute__((__noreturn__));
void kcompat_warn(const char *file, int line, const char *fmt, ...) __attribute__((__format__(__printf__, 3, 4)));

#define BUG() kcompat_bug(__FILE__, __LINE__, "BUG()")
#define BUG_ON(cond) do { if (unlikely(cond)) kcompat_bug(__FILE__, __LINE__, "BUG_ON(" #cond ")"); } while (0)
#define WARN_ON(cond) ({ int __c = !!(cond); if (unlikely(__c)) kcompat_warn(__FILE__, __LINE__, "%s", "WARN_ON(" #cond ")"); unlikely(__c); })
#define WARN_ON_ONCE(cond) WARN_ON(cond)
#define WARN(cond, fmt...) ({ int __c = !!(cond); if (unlikely(__c)) kcompat_warn(__FILE__, __LINE__, fmt); unlikely(__c); })
#define WARN_ONCE(cond, fmt...) WARN(cond, fmt)

#endif
