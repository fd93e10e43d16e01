/* cargo xtask platforms generates the bindings for x86_64-pc-windows-msvc, and cargo xtask
 * regenerate its Windows pass (the gl module for x86_64-pc-windows-gnu), without Windows headers:
 * what GL/gl.h (APIENTRY, WINGDIAPI) and EGL/eglplatform.h (the native handle types, pointers to
 * incomplete structs as in windows.h) take from <windows.h>. */
#define APIENTRY __stdcall
#define WINGDIAPI __declspec(dllimport)
typedef struct HDC__ *HDC;
typedef struct HBITMAP__ *HBITMAP;
typedef struct HWND__ *HWND;
