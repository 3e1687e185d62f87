/**
 * \file dash/dart/if/dart_util.h
 *
 * Attribute and marker macros shared by the DART interface headers.
 */
#ifndef DASH__DART__IF__DART_UTIL_H_
#define DASH__DART__IF__DART_UTIL_H_

/* Appended after prototypes: functions that never throw C++ exceptions. */
#ifdef __cplusplus
#define DART_NOTHROW __attribute__((nothrow))
#else
#define DART_NOTHROW
#endif

#define DART_MAYBE_UNUSED __attribute__((unused))

/* Storage class for inline helper functions defined in headers. */
#define DART_INLINE static inline DART_MAYBE_UNUSED

/* Empty markers without semantic role. */
#define DART_INTERFACE_ON
#define DART_INTERFACE_OFF

#endif /* DASH__DART__IF__DART_UTIL_H_ */
