/* C side of tests/check_error_strings.rs: what C code gets from cuGetErrorName / cuGetErrorString,
 * and the report the posts' __check_cuda_driver prints, compiled against the selected cuda.h.
 * Only those two driver functions are referenced, so the test links against any 12.x/13.x driver. */
#include <cuda.h>
#include <stddef.h>
#include <stdio.h>

/* cuGetErrorName as C calls it: the pointer starts as NULL (the posts' nullptr) and is returned as
 * the driver left it. The call's own result goes to *status. */
const char* c_error_name(unsigned int code, unsigned int* status) {
    const char* s = NULL;
    *status = (unsigned int)cuGetErrorName((CUresult)code, &s);
    return s;
}

const char* c_error_string(unsigned int code, unsigned int* status) {
    const char* s = NULL;
    *status = (unsigned int)cuGetErrorString((CUresult)code, &s);
    return s;
}

/* __check_cuda_driver from the posts, with snprintf into buf instead of printf (same format string,
 * same arguments; glibc formats a NULL %s as "(null)"). Returns the length the report has, or -1
 * when code is CUDA_SUCCESS (nothing printed). */
int c_check_report(char* buf, size_t size, unsigned int code, const char* op, const char* file, int line) {
    if ((CUresult)code != CUDA_SUCCESS) {
        const char* err_name = NULL;
        const char* err_message = NULL;
        cuGetErrorName((CUresult)code, &err_name);
        cuGetErrorString((CUresult)code, &err_message);
        return snprintf(buf, size, "%s:%d  %s failed. \n  code = %s, message = %s\n", file, line, op, err_name, err_message);
    }
    return -1;
}
