#define _DEFAULT_SOURCE /* O_CLOEXEC with strict POSIX headers */
#include "base/shm_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int shm_file_create(const char *tag, size_t bytes,
                    char path[SHM_FILE_PATH_MAX])
{
  static unsigned serial;
  /* A file of that name may be left by a killed process whose id this
   * process now has (ids come back: 32768 of them by default, a test run
   * starts more processes than that): the next serial number then. */
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 64; ++attempt) {
    snprintf(path, SHM_FILE_PATH_MAX, "/dev/shm/%s-%ld-%u", tag,
             (long)getpid(), __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) {
      return -1;
    }
  }
  if (fd < 0) {
    return -1;
  }
  if (ftruncate(fd, (off_t)bytes) != 0) {
    int saved = errno;
    close(fd);
    unlink(path);
    errno = saved;
    return -1;
  }
  return fd;
}

void *shm_file_map_fd(int fd, size_t bytes)
{
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? NULL : p;
}

void *shm_file_map(const char *path, size_t bytes)
{
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    return NULL;
  }
  void *p = shm_file_map_fd(fd, bytes);
  int saved = errno;
  close(fd);
  errno = saved;
  return p;
}
