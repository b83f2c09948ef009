/* SPDX-License-Identifier: MIT */
/*
 * driver.c - a standalone driver for the LLVMFuzzerTestOneInput targets, so
 * `make check` fuzzes with any C compiler: every seed file, then -runs=N
 * deterministic mutations of them (bit flips, byte edits, chunk copies,
 * splices, boundary integers).  The same command reproduces the same inputs.
 * `make fuzz` uses libFuzzer instead where clang provides it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (4u << 20)

struct seed {
	uint8_t *data;
	size_t len;
};

static struct seed *seeds;
static size_t nseeds;
static const uint8_t *current;
static size_t current_len;
static const char *crash_path = "fuzz-crash.bin";

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void on_crash(int sig)
{
	int fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, current, current_len) < 0) {
			/* nothing more to do in a signal handler */
		}
		close(fd);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void add_seed(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	uint8_t *buf = malloc(MAX_INPUT);
	size_t n = buf ? fread(buf, 1, MAX_INPUT, f) : 0;
	fclose(f);
	struct seed *s = realloc(seeds, (nseeds + 1) * sizeof(*s));
	if (!buf || !s) {
		free(buf);
		return;
	}
	seeds = s;
	seeds[nseeds++] = (struct seed){ buf, n };
}

static void add_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		add_seed(path);
		return;
	}
	DIR *d = opendir(path);
	if (!d)
		return;
	/* sorted, so the run is the same on every file system */
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char **p = realloc(names, (n + 1) * sizeof(*p));
		if (!p)
			break;
		names = p;
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	for (size_t i = 0; i + 1 < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (names[j] && names[i] && strcmp(names[j], names[i]) < 0) {
				char *t = names[i];
				names[i] = names[j];
				names[j] = t;
			}
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		char full[4096];
		snprintf(full, sizeof(full), "%s/%s", path, names[i]);
		add_seed(full);
		free(names[i]);
	}
	free(names);
}

/* One mutation of buf (len bytes, capacity MAX_INPUT); returns the new len. */
static size_t mutate(uint8_t *buf, size_t len)
{
	static const int64_t interesting[] = { 0, 1, -1, 127, 128, 255, 256,
					       32767, 65535, INT32_MAX,
					       (int64_t)INT32_MIN, INT64_MAX };
	size_t pos = len ? next() % len : 0;
	switch (next() % 9) {
	case 0: /* flip a bit */
		if (len)
			buf[pos] ^= (uint8_t)(1u << (next() % 8));
		break;
	case 1: /* random byte */
		if (len)
			buf[pos] = (uint8_t)next();
		break;
	case 2: /* delete a run */
		if (len) {
			size_t n = 1 + next() % (len - pos < 16 ? len - pos : 16);
			memmove(buf + pos, buf + pos + n, len - pos - n);
			len -= n;
		}
		break;
	case 3: /* insert bytes */
		if (len + 8 < MAX_INPUT) {
			size_t n = 1 + next() % 8;
			memmove(buf + pos + n, buf + pos, len - pos);
			for (size_t i = 0; i < n; i++)
				buf[pos + i] = (uint8_t)("0123456789,-\n@: \r"[next() % 17]);
			len += n;
		}
		break;
	case 4: /* copy a chunk within */
		if (len > 2) {
			size_t from = next() % len, n = 1 + next() % 64;
			if (from + n > len)
				n = len - from;
			if (pos + n > len)
				n = len - pos;
			memmove(buf + pos, buf + from, n);
		}
		break;
	case 5: /* boundary integer, as text or binary */
		if (len >= 8) {
			int64_t v = interesting[next() % (sizeof(interesting) / sizeof(interesting[0]))];
			if (next() & 1) {
				char txt[24];
				int n = snprintf(txt, sizeof(txt), "%lld", (long long)v);
				if (pos + (size_t)n <= len)
					memcpy(buf + pos, txt, (size_t)n);
			} else if (pos + 8 <= len) {
				memcpy(buf + pos, &v, 8);
			}
		}
		break;
	case 6: /* truncate */
		len = pos;
		break;
	case 7: /* splice with another seed */
		if (nseeds > 1) {
			const struct seed *s = &seeds[next() % nseeds];
			size_t from = s->len ? next() % s->len : 0;
			size_t n = s->len - from;
			if (pos + n > MAX_INPUT)
				n = MAX_INPUT - pos;
			memcpy(buf + pos, s->data + from, n);
			len = pos + n;
		}
		break;
	default: /* zero a run */
		if (len) {
			size_t n = 1 + next() % 32;
			if (pos + n > len)
				n = len - pos;
			memset(buf + pos, 0, n);
		}
		break;
	}
	return len;
}

int main(int argc, char **argv)
{
	long runs = 1000;
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "-runs=", 6) == 0)
			runs = atol(argv[i] + 6);
		else if (strncmp(argv[i], "-seed=", 6) == 0)
			rng = strtoull(argv[i] + 6, NULL, 0) | 1;
		else if (strncmp(argv[i], "-crash=", 7) == 0)
			crash_path = argv[i] + 7;
		else if (argv[i][0] == '-')
			continue; /* libFuzzer flags are harmless here */
		else
			add_path(argv[i]);
	}
	signal(SIGSEGV, on_crash);
	signal(SIGABRT, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGFPE, on_crash);
	uint8_t *buf = malloc(MAX_INPUT);
	if (!buf)
		return 1;
	long done = 0;
	for (size_t i = 0; i < nseeds; i++, done++) {
		current = seeds[i].data;
		current_len = seeds[i].len;
		LLVMFuzzerTestOneInput(current, current_len);
	}
	current = buf;
	current_len = 0;
	LLVMFuzzerTestOneInput(buf, 0);
	for (long r = 0; r < runs; r++, done++) {
		size_t len = 0;
		if (nseeds) {
			const struct seed *s = &seeds[next() % nseeds];
			memcpy(buf, s->data, s->len);
			len = s->len;
		}
		int rounds = 1 + (int)(next() % 4);
		for (int k = 0; k < rounds; k++)
			len = mutate(buf, len);
		current_len = len;
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("ok 1 - %s: %zu seeds and %ld inputs without a crash\n", argv[0],
	       nseeds, done - (long)nseeds);
	printf("1..1\n");
	for (size_t i = 0; i < nseeds; i++)
		free(seeds[i].data);
	free(seeds);
	free(buf);
	return 0;
}
