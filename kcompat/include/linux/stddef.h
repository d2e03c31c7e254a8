/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KCOMPAT_LINUX_STDDEF_H
#define _KCOMPAT_LINUX_STDDEF_H

#include <stddef.h>
#include <linux/types.h>

#endif
