/* Node-shared files (base/shm_file.c): a file left in /dev/shm by a killed
 * process whose id this process has now does not stop the creation; the
 * next free name is taken, and the stale files stay as they were. */
#include "base/shm_file.h"
#include "test.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void stale_names(void)
{
  /* The first two names this process would take (serial numbers 0, 1). */
  char stale[2][SHM_FILE_PATH_MAX];
  for (int k = 0; k < 2; ++k) {
    snprintf(stale[k], sizeof stale[k], "/dev/shm/dart-test-%ld-%d",
             (long)getpid(), k);
    int fd = open(stale[k], O_RDWR | O_CREAT | O_EXCL, 0600);
    ASSERT_MSG(fd >= 0, "cannot make %s", stale[k]);
    ASSERT_EQ(write(fd, "old", 3), 3);
    close(fd);
  }
  char path[SHM_FILE_PATH_MAX];
  int fd = shm_file_create("dart-test", 4096, path);
  ASSERT_MSG(fd >= 0, "shm_file_create failed beside stale files");
  char expected[SHM_FILE_PATH_MAX];
  snprintf(expected, sizeof expected, "/dev/shm/dart-test-%ld-2",
           (long)getpid());
  ASSERT_MSG(strcmp(path, expected) == 0, "made %s, not %s", path,
             expected);
  struct stat st;
  ASSERT_EQ(fstat(fd, &st), 0);
  ASSERT_EQ(st.st_size, 4096);
  char *p = shm_file_map_fd(fd, 4096);
  ASSERT(p != NULL);
  p[4095] = 7;
  close(fd);
  ASSERT_EQ(unlink(path), 0);
  for (int k = 0; k < 2; ++k) { /* untouched */
    ASSERT_EQ(stat(stale[k], &st), 0);
    ASSERT_EQ(st.st_size, 3);
    ASSERT_EQ(unlink(stale[k]), 0);
  }
}

static const struct test_case cases[] = {
  { "stale_names", stale_names },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
