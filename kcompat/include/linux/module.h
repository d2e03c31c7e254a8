/* SPDX-License-Identifier: GPL-2.0 */
/* A module's init function becomes the plugin's entry point: blksim calls
 * kcompat_module_init() after loading the plugin, and the elevator it registers with
 * elv_register() is the one the plugin provides. */
#ifndef _KCOMPAT_LINUX_MODULE_H
#define _KCOMPAT_LINUX_MODULE_H

#include <linux/init.h>
#include <linux/export.h>

struct module;
#define THIS_MODULE ((struct module *)0)
#define module_init(fn) __attribute__((visibility("default"))) int kcompat_module_init(void) { return fn(); }
#define module_exit(fn) __attribute__((visibility("default"))) void kcompat_module_exit(void) { fn(); }
#define MODULE_ALIAS(s)
#define MODULE_AUTHOR(s)
#define MODULE_LICENSE(s)
#define MODULE_DESCRIPTION(s)
#define module_param(name, type, perm)
#define MODULE_PARM_DESC(name, desc)

#endif
