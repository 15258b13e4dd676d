/* test_labels.c: labels files (src/cli/labels.c): synset.csv with quotes, commas, CRLF and
 * a header; synset.txt; plain lists; errors; and the real ImageNet files when present. */
#include <stdio.h>
#include <string.h>

#include "../test.h"
#include "cli/labels.h"

static void parse_ok(const char *text, wg_labels *l)
{
    char err[256];
    wg_status st = wg_labels_parse(text, strlen(text), "t", l, err, sizeof err);
    CHECK(st == WG_OK, "parse failed: %s", err);
}

TEST(csv_quotes_crlf_header)
{
    wg_labels l;
    parse_ok("id,label\r\n0,\"tench, Tinca tinca\"\r\n1,goldfish\r\n2,\"say \"\"hi\"\"\"\r\n\r\n", &l);
    CHECK(l.n == 3, "n = %zu", l.n);
    CHECK(!strcmp(wg_labels_get(&l, 0), "tench, Tinca tinca"), "[0] = '%s'", wg_labels_get(&l, 0));
    CHECK(!strcmp(wg_labels_get(&l, 1), "goldfish"), "[1] = '%s'", wg_labels_get(&l, 1));
    CHECK(!strcmp(wg_labels_get(&l, 2), "say \"hi\""), "[2] = '%s'", wg_labels_get(&l, 2));
    CHECK(!strcmp(wg_labels_get(&l, 3), "?"), "out of range");
    wg_labels_free(&l);
    /* Indices place labels, whatever the line order. */
    parse_ok("1,b\n0,a\n", &l);
    CHECK(l.n == 2 && !strcmp(l.names[0], "a") && !strcmp(l.names[1], "b"), "reordered");
    wg_labels_free(&l);
}

TEST(synset_txt_and_plain)
{
    wg_labels l;
    parse_ok("n01440764 tench, Tinca tinca\nn01443537 goldfish, Carassius auratus\n", &l);
    CHECK(l.n == 2 && !strcmp(l.names[1], "goldfish, Carassius auratus"), "synset: '%s'",
          l.n > 1 ? l.names[1] : "");
    wg_labels_free(&l);
    parse_ok("zero\r\none\n\ntwo", &l);
    CHECK(l.n == 3 && !strcmp(l.names[2], "two") && !strcmp(l.names[1], "one"), "plain");
    wg_labels_free(&l);
}

TEST(errors)
{
    wg_labels l;
    char err[256];
    CHECK(wg_labels_parse("0,a\n0,b\n", 8, "dup.csv", &l, err, sizeof err) == WG_ERR_FORMAT &&
              strstr(err, "dup.csv:2: class 0 has a second label"), "%s", err);
    CHECK(wg_labels_parse("0,a\nbanana\n", 11, "mix.csv", &l, err, sizeof err) == WG_ERR_FORMAT &&
              strstr(err, "mix.csv:2"), "%s", err);
    CHECK(wg_labels_parse("\n\n", 2, "blank", &l, err, sizeof err) == WG_ERR_FORMAT, "%s", err);
    CHECK(wg_labels_load("/nonexistent/labels.txt", &l, err, sizeof err) == WG_ERR_IO, "%s", err);
}

TEST(imagenet_files)
{
    static const char *files[] = {"/work/shared/data/labels/synset.csv",
                                  "/work/shared/data/labels/synset.txt"};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "rb");
        if (!f)
            continue; /* the shared data is optional */
        fclose(f);
        wg_labels l;
        char err[256];
        wg_status st = wg_labels_load(files[i], &l, err, sizeof err);
        CHECK(st == WG_OK, "%s", err);
        if (st)
            continue;
        CHECK(l.n == 1000, "%s: %zu labels", files[i], l.n);
        CHECK(!strcmp(wg_labels_get(&l, 0), "tench, Tinca tinca"), "%s: [0] '%s'", files[i],
              wg_labels_get(&l, 0));
        CHECK(!strncmp(wg_labels_get(&l, 281), "tabby", 5), "%s: [281] '%s'", files[i],
              wg_labels_get(&l, 281));
        wg_labels_free(&l);
    }
}

int main(void)
{
    RUN(csv_quotes_crlf_header);
    RUN(synset_txt_and_plain);
    RUN(errors);
    RUN(imagenet_files);
    return test_summary("labels");
}
