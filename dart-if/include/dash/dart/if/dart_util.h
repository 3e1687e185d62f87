/**
 * \file dash/dart/if/dart_util.h
 *
 * \brief Attribute and marker macros shared by the DART interface headers.
 *
 * The header has no includes of its own and declares no functions.
 */
#ifndef DASH__DART__IF__DART_UTIL_H_
#define DASH__DART__IF__DART_UTIL_H_

/**
 * \defgroup DartUtil Utility macros
 * \brief Macros the other headers append to their declarations.
 * @{
 */

/**
 * \def DART_NOTHROW
 * \brief Marks a DART function that never throws a C++ exception.
 *
 * Appended after a prototype. Expands to `__attribute__((nothrow))` when
 * the header is compiled as C++ and to nothing in C. No DART function
 * throws, whether or not its prototype carries the marker.
 */
#ifdef __cplusplus
#define DART_NOTHROW __attribute__((nothrow))
#else
#define DART_NOTHROW
#endif

/**
 * \brief Tells the compiler that an entity may be unused, so that no
 *        warning is issued for it.
 */
#define DART_MAYBE_UNUSED __attribute__((unused))

/**
 * \brief Storage class of the inline helper functions defined in the
 *        headers (`static inline`, without an unused-function warning).
 */
#define DART_INLINE static inline DART_MAYBE_UNUSED

/** \brief Empty marker without meaning; kept for source compatibility. */
#define DART_INTERFACE_ON
/** \brief Empty marker without meaning; kept for source compatibility. */
#define DART_INTERFACE_OFF

/** @} */

#endif /* DASH__DART__IF__DART_UTIL_H_ */
