/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KCOMPAT_LINUX_EXPORT_H
#define _KCOMPAT_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)

#endif
