/* fastconn_export.h - the one export macro of the fastconn C API.
 *
 * The library is compiled with hidden default visibility and FASTCONN_BUILDING defined, so only
 * declarations marked FC_API leave the shared object. Consumers see FC_API as nothing at all:
 * ELF imports need no decoration, and a header free of compiler extensions is what MATLAB's
 * loadlibrary and Python's cffi parse. */
#ifndef FASTCONN_EXPORT_H
#define FASTCONN_EXPORT_H

#if defined(FASTCONN_BUILDING) && defined(_WIN32)
#define FC_API __declspec(dllexport)
#elif defined(FASTCONN_BUILDING) && defined(__GNUC__)
#define FC_API __attribute__((visibility("default")))
#else
#define FC_API
#endif

#endif /* FASTCONN_EXPORT_H */
