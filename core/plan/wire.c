/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wire: a request sent to a sandbox built ahead of it.  The worker encodes
 * it (wire_send_request); init, waiting in its half-built sandbox, decodes
 * it (wire_receive_request).  Decoding allocates: it runs in init before the
 * payload exists, and the memory is init's, freed with it.
 *
 * A flat buffer: integers in native order (both ends are this program),
 * strings and byte strings as a 64-bit length and the bytes, a NULL string
 * as length ~0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan.h"
#include "util/util.h"

struct wire {
	char *buf;
	size_t len, cap, pos;
	bool bad;
};

static void put_raw(struct wire *w, const void *data, size_t len)
{
	if (w->bad)
		return;
	if (w->len + len > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap < w->len + len)
			cap *= 2;
		char *nb = realloc(w->buf, cap);
		if (!nb) {
			w->bad = true;
			return;
		}
		w->buf = nb;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, data, len);
	w->len += len;
}

static void put_u64(struct wire *w, uint64_t v)
{
	put_raw(w, &v, sizeof(v));
}

static void put_bytes(struct wire *w, const char *s, size_t len)
{
	put_u64(w, s ? len : ~(uint64_t)0);
	if (s)
		put_raw(w, s, len);
}

static void put_str(struct wire *w, const char *s)
{
	put_bytes(w, s, s ? strlen(s) : 0);
}

static void put_strv(struct wire *w, char **v)
{
	uint64_t n = 0;
	while (v && v[n])
		n++;
	put_u64(w, n);
	for (uint64_t i = 0; i < n; i++)
		put_str(w, v[i]);
}

static uint64_t get_u64(struct wire *w)
{
	uint64_t v = 0;
	if (w->pos + sizeof(v) > w->len) {
		w->bad = true;
		return 0;
	}
	memcpy(&v, w->buf + w->pos, sizeof(v));
	w->pos += sizeof(v);
	return v;
}

/* A NUL-terminated copy (NULs inside kept, as files may hold them). */
static char *get_bytes(struct wire *w, size_t *len)
{
	uint64_t n = get_u64(w);
	if (w->bad || n == ~(uint64_t)0)
		return NULL;
	if (n > w->len - w->pos) {
		w->bad = true;
		return NULL;
	}
	char *s = malloc(n + 1);
	if (!s) {
		w->bad = true;
		return NULL;
	}
	memcpy(s, w->buf + w->pos, n);
	s[n] = 0;
	w->pos += n;
	if (len)
		*len = n;
	return s;
}

static char **get_strv(struct wire *w)
{
	uint64_t n = get_u64(w);
	if (w->bad || n > 100000)
		return w->bad = true, NULL;
	char **v = calloc(n + 1, sizeof(*v));
	for (uint64_t i = 0; v && i < n; i++)
		v[i] = get_bytes(w, NULL);
	return v;
}

static int encode_request(const struct sandbox_spec *spec, struct wire *w)
{
	const struct lang *lang = spec->lang;
	memset(w, 0, sizeof(*w));
	put_u64(w, 0);                          /* length, filled in below */
	put_str(w, lang->dir);
	put_str(w, lang->workdir);
	put_u64(w, lang->tmp_size);
	put_u64(w, spec->mem_max ? spec->mem_max : lang->mem_max); /* meminfo */
	put_strv(w, lang->subdirs);
	put_strv(w, lang->overlay_paths);
	put_str(w, spec->command);
	put_u64(w, (uint64_t)spec->timeout_ms);
	put_u64(w, (uint64_t)spec->cpu_deadline_ms);
	put_u64(w, (uint64_t)spec->idle_deadline_ms);
	put_u64(w, spec->output_max);
	put_u64(w, spec->stack_max);
	put_str(w, spec->lower);
	put_str(w, spec->export_dir);
	put_u64(w, spec->export_max_bytes);
	put_u64(w, spec->export_max_entries);
	put_bytes(w, spec->stdin_data, spec->stdin_len);
	put_str(w, spec->input_file);
	put_str(w, spec->output_file);
	put_strv(w, (char **)spec->sh_argv);
	put_str(w, spec->data_dir);
	put_u64(w, spec->stderr_to_stdout);
	put_u64(w, spec->n_files);
	for (size_t i = 0; i < spec->n_files; i++) {
		put_str(w, spec->files[i].name);
		put_bytes(w, spec->files[i].data, spec->files[i].len);
	}
	if (w->bad)
		return -1;
	uint64_t len = w->len;
	memcpy(w->buf, &len, sizeof(len));
	return 0;
}

/* In init: waits for the request and rebuilds spec and lang from it.  The
 * memory is init's, freed with it. */
int wire_send_request(int fd, const struct sandbox_spec *spec)
{
	struct wire w;
	int rc = encode_request(spec, &w);
	if (rc == 0)
		rc = write_all(fd, w.buf, w.len);
	free(w.buf);
	return rc;
}

int wire_receive_request(struct plan *p, struct received *got)
{
	uint64_t len;
	if (read_all(p->go[0], &len, sizeof(len)) < 0 || len < sizeof(len) ||
	    len > (1ULL << 34))
		return -1;
	struct wire w = { .len = (size_t)len, .pos = sizeof(len) };
	w.buf = malloc(w.len);
	if (!w.buf || read_all(p->go[0], w.buf + sizeof(len), w.len - sizeof(len)) < 0)
		return -1;
	close(p->go[0]);
	struct lang *lang = &got->lang;
	struct sandbox_spec *spec = &got->spec;
	lang->dir = get_bytes(&w, NULL);
	lang->workdir = get_bytes(&w, NULL);
	lang->tmp_size = get_u64(&w);
	lang->mem_max = get_u64(&w);
	lang->subdirs = get_strv(&w);
	lang->overlay_paths = get_strv(&w);
	spec->lang = lang;
	spec->command = get_bytes(&w, NULL);
	spec->timeout_ms = (long)get_u64(&w);
	spec->cpu_deadline_ms = (long)get_u64(&w);
	spec->idle_deadline_ms = (long)get_u64(&w);
	spec->output_max = (size_t)get_u64(&w);
	spec->stack_max = get_u64(&w);
	spec->lower = get_bytes(&w, NULL);
	spec->export_dir = get_bytes(&w, NULL);
	spec->export_max_bytes = get_u64(&w);
	spec->export_max_entries = get_u64(&w);
	spec->stdin_data = get_bytes(&w, &spec->stdin_len);
	spec->input_file = get_bytes(&w, NULL);
	spec->output_file = get_bytes(&w, NULL);
	char **sh_argv = get_strv(&w);
	spec->sh_argv = sh_argv && sh_argv[0] ? sh_argv : NULL;
	spec->data_dir = get_bytes(&w, NULL);
	spec->stderr_to_stdout = get_u64(&w) != 0;
	spec->n_files = (size_t)get_u64(&w);
	if (w.bad || spec->n_files > SANDBOX_FILES_MAX)
		return -1;
	got->files = calloc(spec->n_files + 1, sizeof(*got->files));
	if (!got->files)
		return -1;
	for (size_t i = 0; i < spec->n_files; i++) {
		got->files[i].name = get_bytes(&w, NULL);
		got->files[i].data = get_bytes(&w, &got->files[i].len);
	}
	spec->files = got->files;
	if (w.bad || !lang->dir || !lang->workdir || !spec->command)
		return -1;
	p->spec = spec;
	/* Unused streams: the payload reads /dev/null, nobody reads the file. */
	if (!spec->stdin_data || spec->input_file) {
		close(p->in[0]);
		p->in[0] = -1;
	}
	if (!spec->output_file) {
		close(p->file[1]);
		p->file[1] = -1;
	}
	free(w.buf);
	return 0;
}

