/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KCOMPAT_LINUX_INIT_H
#define _KCOMPAT_LINUX_INIT_H

#define __init
#define __exit
#define __initdata

#endif
