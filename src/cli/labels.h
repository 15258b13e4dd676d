/*
 * labels.h: class labels for `wasmgraph classify`.
 *
 * Three formats, chosen from the first data line of the file:
 *   synset.csv  `idx,label` per line; the label may be double-quoted (with commas and
 *               "" inside); an optional header line (e.g. `id,label`) is skipped
 *   synset.txt  `nXXXXXXXX label words` per line (WordNet id, then the label)
 *   plain       one label per line, in class order
 * CRLF line ends are accepted; blank lines are skipped.
 */
#ifndef WG_LABELS_H
#define WG_LABELS_H

#include <stddef.h>

#include "wasmgraph.h"

typedef struct wg_labels {
    char **names; /* n labels; a csv index with no line is NULL */
    size_t n;
} wg_labels;

/* Parses text[0..len); name is used in messages. */
wg_status wg_labels_parse(const char *text, size_t len, const char *name, wg_labels *out,
                          char *err, size_t errlen);
wg_status wg_labels_load(const char *path, wg_labels *out, char *err, size_t errlen);
void wg_labels_free(wg_labels *l);
/* Label i, or "?" when absent. */
const char *wg_labels_get(const wg_labels *l, size_t i);

#endif
