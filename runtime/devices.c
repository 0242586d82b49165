/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process's devices (devices.h): each backend is opened once
 * per process and shared by all threads, with one allocator, as TVM's
 * VTAMemAlloc (which names no device) implies. A device stays open while a
 * context uses it or a buffer of it is allocated.
 *
 * The list of open devices is the library's one piece of process-wide
 * state; a mutex guards it. Each device has a second mutex that serializes
 * its runs and its cache maintenance (the u-dma-buf sync attributes are one
 * set per region), so threads may share it.
 *
 * Every run goes through rtdev_run: check the stream (validate.c), pin the
 * buffers it touches, flush them, run, invalidate what it wrote, unpin.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"

struct RtDev {
	vta_dev_t *dev;
	char name[16]; /* backend name it is shared under; "" for a test seam */
	int refs;      /* contexts and callers holding it */
	Mem *mem;
	pthread_mutex_t run_lock;
	int start_refused; /* the last start through mapped registers was refused */
	RtDev *next;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static RtDev *registry;

static int wrap(vta_dev_t *dev, const char *name, RtDev **out, vta_error_t *err)
{
	RtDev *d = calloc(1, sizeof *d);
	Mem *m = d ? mem_create(dev) : NULL;
	if (!m) {
		free(d);
		vta_dev_close(dev);
		return vta_error_set(err, VTA_ENOMEM, -1, "cannot allocate a VTA device");
	}
	d->dev = dev;
	snprintf(d->name, sizeof d->name, "%s", name);
	d->refs = 1;
	d->mem = m;
	pthread_mutex_init(&d->run_lock, NULL);
	d->next = registry;
	registry = d;
	*out = d;
	return VTA_OK;
}

int rtdev_acquire(const char *target, RtDev **out, vta_error_t *err)
{
	*out = NULL;
	pthread_mutex_lock(&registry_lock);
	for (RtDev *d = registry; d; d = d->next)
		if (d->name[0] && !strcmp(d->name, target)) {
			d->refs++;
			*out = d;
			pthread_mutex_unlock(&registry_lock);
			return VTA_OK;
		}
	vta_dev_t *dev;
	int rc = vta_dev_open(target, &dev, err);
	if (!rc)
		rc = wrap(dev, target, out, err);
	pthread_mutex_unlock(&registry_lock);
	return rc;
}

int rtdev_acquire_seam(const char *backend, const void *seam, RtDev **out, vta_error_t *err)
{
	*out = NULL;
	pthread_mutex_lock(&registry_lock);
	vta_dev_t *dev;
	int rc = vta_dev_open_seam(backend, seam, &dev, err);
	if (!rc)
		rc = wrap(dev, "", out, err);
	pthread_mutex_unlock(&registry_lock);
	return rc;
}

void rtdev_release(RtDev *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&registry_lock);
	int close = --d->refs == 0 && mem_idle(d->mem);
	if (close)
		for (RtDev **pp = &registry; *pp; pp = &(*pp)->next)
			if (*pp == d) {
				*pp = d->next;
				break;
			}
	pthread_mutex_unlock(&registry_lock);
	if (!close)
		return;
	mem_destroy(d->mem);
	vta_dev_close(d->dev);
	pthread_mutex_destroy(&d->run_lock);
	free(d);
}

RtDev *rtdev_ref(RtDev *d)
{
	pthread_mutex_lock(&registry_lock);
	d->refs++;
	pthread_mutex_unlock(&registry_lock);
	return d;
}

RtDev *rtdev_of_ptr(const void *p)
{
	pthread_mutex_lock(&registry_lock);
	RtDev *d = registry;
	while (d && !mem_in_window(d->mem, p))
		d = d->next;
	if (d)
		d->refs++;
	pthread_mutex_unlock(&registry_lock);
	return d;
}

RtDev *rtdev_of_handle(const void *h)
{
	if (!h)
		return NULL;
	pthread_mutex_lock(&registry_lock);
	RtDev *d = registry;
	while (d && !mem_owns_handle(d->mem, h))
		d = d->next;
	if (d)
		d->refs++;
	pthread_mutex_unlock(&registry_lock);
	return d;
}

vta_dev_t *rtdev_dev(const RtDev *d) { return d->dev; }

Mem *rtdev_mem(const RtDev *d) { return d->mem; }

void rtdev_lock(RtDev *d) { pthread_mutex_lock(&d->run_lock); }

int rtdev_start_refused(RtDev *d, int set)
{
	if (set >= 0)
		d->start_refused = set;
	return d->start_refused;
}

void rtdev_unlock(RtDev *d) { pthread_mutex_unlock(&d->run_lock); }

int rtdev_sync(RtDev *d, int flush, size_t off, size_t n, vta_error_t *err)
{
	rtdev_lock(d);
	int rc = flush ? vta_dev_flush(d->dev, off, n, 1, err) : vta_dev_invalidate(d->dev, off, n, err);
	rtdev_unlock(d);
	return rc;
}

/* ---- Running --------------------------------------------------------------- */

static void pin(RtDev *d, const Touched *t, int delta)
{
	mem_lock(d->mem);
	for (size_t i = 0; i < t->n; i++)
		mem_pin(d->mem, t->t[i].off, delta);
	mem_unlock(d->mem);
}

/* Make the CPU's writes to everything the stream touches visible to the
 * device (run lock held). */
static int sync_for_device(RtDev *d, const Touched *t, vta_error_t *err)
{
	for (size_t i = 0; i < t->n; i++) {
		const Touch *x = &t->t[i];
		if (x->flags & MEM_UNCACHED)
			continue;
		int rc = vta_dev_flush(d->dev, x->lo, x->hi - x->lo, x->written, err);
		if (rc)
			return rc;
	}
	return VTA_OK;
}

/* Make what the stream wrote visible to the CPU (run lock held). */
static int sync_for_cpu(RtDev *d, const Touched *t, vta_error_t *err)
{
	for (size_t i = 0; i < t->n; i++) {
		const Touch *x = &t->t[i];
		if (!x->written || (x->flags & MEM_UNCACHED))
			continue;
		int rc = vta_dev_invalidate(d->dev, x->lo, x->hi - x->lo, err);
		if (rc)
			return rc;
	}
	return VTA_OK;
}

int rtdev_run(RtDev *d, uint64_t insn_pa, uint32_t n, uint32_t wait_cycles, vta_error_t *err)
{
	Touched t;
	touched_init(&t);
	mem_lock(d->mem);
	int rc = rt_validate(d->mem, d->dev, insn_pa, n, NULL, &t, err);
	for (size_t i = 0; !rc && i < t.n; i++)
		mem_pin(d->mem, t.t[i].off, 1);
	mem_unlock(d->mem);
	if (rc) {
		touched_free(&t);
		return rc;
	}
	rtdev_lock(d);
	rc = sync_for_device(d, &t, err);
	if (!rc) {
		rc = vta_dev_run(d->dev, insn_pa, n, wait_cycles, err);
		vta_error_t e2;
		int rc2 = sync_for_cpu(d, &t, rc ? &e2 : err);
		if (!rc)
			rc = rc2;
	}
	rtdev_unlock(d);
	pin(d, &t, -1);
	touched_free(&t);
	return rc;
}

int rtdev_prepare_raw(RtDev *d, uint64_t insn_pa, uint32_t n, const vta_bases_t *bases,
		      vta_error_t *err)
{
	Touched t;
	touched_init(&t);
	mem_lock(d->mem);
	int rc = rt_validate(d->mem, d->dev, insn_pa, n, bases, &t, err);
	mem_unlock(d->mem);
	if (!rc)
		rc = sync_for_device(d, &t, err);
	touched_free(&t);
	return rc;
}
