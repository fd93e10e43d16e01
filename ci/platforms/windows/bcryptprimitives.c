/* TEST EQUIPMENT, not part of the crate: bcryptprimitives.dll with the one function Rust's standard
 * library imports from it on Windows, ProcessPrng (the random bytes of HashMap's seeds, among
 * others). Windows 10 and later have the DLL; wine 8.0 (Debian bookworm's wine64), under which
 * the platforms task runs the Windows test binaries, lacks it, so no Rust program starts
 * there without this. The bytes are the system's cryptographic generator's (BCryptGenRandom with
 * the system-preferred RNG, which wine implements), never a fixed sequence;
 * ci/platforms/windows/prng_check.c checks that. */
#include <windows.h>
#include <bcrypt.h>

/* Windows' contract: fills `data` with `len` random bytes and always returns TRUE. Where the
 * generator fails this test DLL returns FALSE, so a broken set-up is not silently predictable. */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
