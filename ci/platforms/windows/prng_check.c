/* Checks the test DLL bcryptprimitives.dll (bcryptprimitives.c) under wine: prints, as hex, two
 * draws of 32 bytes from its ProcessPrng, one a line. The platforms task runs it twice and
 * requires four different lines, none all zeros: random bytes, not a fixed sequence. */
#include <stdio.h>
#include <windows.h>

typedef BOOL(WINAPI *process_prng_fn)(PBYTE, SIZE_T);

int main(void) {
    HMODULE dll = LoadLibraryA("bcryptprimitives.dll");
    process_prng_fn prng = dll ? (process_prng_fn)(void *)GetProcAddress(dll, "ProcessPrng") : NULL;
    if (!prng) {
        fprintf(stderr, "prng_check: no ProcessPrng in bcryptprimitives.dll (Windows error %lu)\n",
                GetLastError());
        return 1;
    }
    for (int draw = 0; draw < 2; draw++) {
        BYTE bytes[32] = {0};
        if (!prng(bytes, sizeof bytes)) {
            fprintf(stderr, "prng_check: ProcessPrng failed\n");
            return 1;
        }
        for (size_t i = 0; i < sizeof bytes; i++) {
            printf("%02x", bytes[i]);
        }
        printf("\n");
    }
    return 0;
}
