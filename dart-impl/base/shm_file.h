/* Files in /dev/shm that one process of a node creates and the others
 * map by name: the node table and hwloc's shared topology live there.
 * Cheaper than an MPI shared window (no collective beyond telling the
 * node the name). No MPI here. */
#ifndef DART_BASE_SHM_FILE_H
#define DART_BASE_SHM_FILE_H

#include <stddef.h>

#define SHM_FILE_PATH_MAX 64

/* Creates a new file of `bytes` bytes named after `tag`, the process id
 * and a serial number, readable and writable by the owner only. Returns
 * an open descriptor (path filled in), or -1 with errno set. */
int shm_file_create(const char *tag, size_t bytes,
                    char path[SHM_FILE_PATH_MAX]);

/* Maps `bytes` of an open file, or of the file at `path`, shared and
 * read-write. NULL with errno set on failure. */
void *shm_file_map_fd(int fd, size_t bytes);
void *shm_file_map(const char *path, size_t bytes);

#endif
