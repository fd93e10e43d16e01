/* How the recorder reads a driver call's arguments (the trace format and the identity rules:
 * recorder.c). The types of the table the bindings' generator writes for it (its
 * `call_arguments` bin: `call_arguments.h`, one row per CUPTI driver callback id), and what
 * recorder.c asks of arguments.c.
 */
#ifndef RECORDER_ARGUMENTS_H
#define RECORDER_ARGUMENTS_H

#include <stddef.h>
#include <stdint.h>

/* What a value is, and so how it is printed. */
enum kind {
    K_INT,           /* a signed integer or enum, `size` bytes */
    K_UINT,          /* an unsigned one */
    K_FLOAT,         /* a float or double */
    K_HANDLE,        /* a handle of the typedef `handle`: `CUstream#2` */
    K_ADDRESS,       /* a device address: `mem#3+256`, `addr#4` */
    K_HOST,          /* a host pointer: `mem#1+0`, `host` */
    K_STRING,        /* a C string */
    K_WRITTEN,       /* a member the call writes: `=>out` */
    K_EXTRA,         /* a launch's `extra`: its argument buffer as words */
    K_RECORD,        /* a structure: `{a=1,b=2}`, its `children` the fields */
    K_UNION,         /* a union: the child whose `when` is the discriminant (`link[0]`) */
    K_NOTHING,       /* a union's member that holds nothing */
    K_FIXED,         /* an array of `length` elements, `children[0]` each */
    K_POINTER,       /* a pointer to `children[0]` (`link[0]` elements where it counts) */
    K_OUT,           /* a pointer the call writes through, read after it: a parameter, or a
                        member of an input structure (`link[0]` elements where it counts; the
                        handles written live no longer than the `owner` handle `link[1]` names) */
    K_KERNEL_PARAMS, /* `kernelParams`: function `link[0]`, kernel `link[1]` */
    K_WORDS,         /* a pointer to `link[0]` pointer-sized words */
    K_UNDESCRIBED,   /* `?<why>` */
};

/* What a link's offset is taken from. */
enum from {
    FROM_NONE,    /* no link */
    FROM_BASE,    /* the start the node's own offset is taken from */
    FROM_PARAMS,  /* the entry's parameter struct */
    FROM_POINTEE, /* the value behind the parameter there, after the call */
};

/* Another value a node reads: a count (less `minus`), a discriminant, a launch's function. */
struct link {
    enum from from;
    size_t offset, size;
    unsigned minus;
};

/* One value, `size` bytes at `offset` from the start being read (a parameter struct, a
 * pointee, an array element); `name` NULL for an element, or an anonymous union whose member
 * is printed as one of its parent's. */
struct node {
    const char *name;
    enum kind kind;
    size_t offset, size;
    const char *handle; /* K_HANDLE */
    const char *why;    /* K_UNDESCRIBED */
    size_t length;      /* K_FIXED */
    long long when;     /* a union's member: the discriminant's value that selects it */
    int fresh;          /* K_OUT: a handle written is a new object */
    const char *owner;  /* K_OUT: the typedef of the handle `link[1]` names, or NULL */
    struct link link[2];
    const struct node *children;
    size_t count;
};

/* A place of an allocation rule: a parameter's value, the value behind a pointer parameter, or
 * a member of the struct a pointer parameter points to (the latter two after the call). */
enum where { W_NONE, W_VALUE, W_POINTEE, W_FIELD };
struct place {
    enum where how;
    size_t param, field, size;
};

/* How an allocation's size is known. */
enum size_rule {
    S_OF,       /* `size` */
    S_TIMES,    /* `size` × `factor` */
    S_ASKED,    /* the driver's cuMemGetAddressRange */
    S_ALIAS_OF, /* an alias of the allocation the host pointer `size` is in */
};

/* A call that returns memory at `address`. */
struct allocation {
    struct place address;
    enum size_rule rule;
    struct place size, factor;
};

/* A driver entry: its parameters; the parameter whose object it ends (-1: none); the memory it
 * returns. `described` 0: the recorder writes `?undescribed`. */
struct function {
    int described;
    const struct node *params;
    size_t count;
    int released;
    const struct allocation *allocation;
};

/* A call between its entry and its exit. */
struct call;

/* Reads the inputs of a call of the entry `cbid` with CUPTI's `functionParams` `params`: NULL
 * where memory ran out. */
struct call *arguments_enter(uint32_t cbid, const void *params);

/* Reads the outputs of `call` (its parameters `params`, its CUresult `result`), updates the
 * identities (what it allocated, created, released), frees `call` and returns the arguments'
 * text (malloc'd; NULL where memory ran out). */
char *arguments_exit(struct call *call, const void *params, uint32_t result);

#endif
