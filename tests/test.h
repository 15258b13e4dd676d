/*
 * test.h: the smallest test harness that says what it checks.
 *
 *     TEST(parses_varint) { CHECK(x == 3, "got %d", x); }
 *     int main(void) { RUN(parses_varint); return test_summary("pb"); }
 *
 * Each CHECK that fails prints file:line, the condition and the message; the summary
 * prints "<suite>: N passed, M failed" (one line per test binary) and the exit code is
 * nonzero when anything failed.
 */
#ifndef WG_TEST_H
#define WG_TEST_H

#include <stdio.h>

static int test_failed_checks, test_passed, test_failed;

#define TEST(name) static void test_##name(void)
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            test_failed_checks++;                                                          \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)
#define RUN(name)                                                                          \
    do {                                                                                   \
        int before_ = test_failed_checks;                                                  \
        test_##name();                                                                     \
        if (test_failed_checks == before_)                                                 \
            test_passed++;                                                                 \
        else {                                                                             \
            test_failed++;                                                                 \
            fprintf(stderr, "FAIL %s\n", #name);                                           \
        }                                                                                  \
    } while (0)

static inline int test_summary(const char *suite)
{
    printf("%s: %d passed, %d failed\n", suite, test_passed, test_failed);
    return test_failed ? 1 : 0;
}

#endif
