/* The platforms task's view of the constants probe (tests/support/c/constants_probe.c): the probe
 * builds its table inside a function, which a compiler may fill by code, so here the same table,
 * with the probe's own K and P macros, is also one of static storage, which a compiler writes
 * out as data (xtask/src/platforms/asm_data.rs reads it from the assembly). */
#include "constants_probe.c"

const cdsys_constant cdsys_platform_constants[] = {
#include "constants.inc"
    {0}};
