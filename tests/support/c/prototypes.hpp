/* The generic C++ half of the prototype probe (tests/support/prototypes.rs writes, per view of the
   headers, one line per entry: CDSYS_SIGNATURE for a function or PFN typedef, CDSYS_TYPE for any
   other typedef, CDSYS_SPELLING for a C spelling). A mismatch makes g++ print the instantiation
   `cdsys::check<WHERE, cdsys::header<HEADER'S TYPE>, cdsys::bindings<BINDINGS' TYPE>>`, WHERE
   numbering the entry and the part of it (`cdsys::where<17, 6>`); the probe turns those into one
   line each. */
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace cdsys {
/* Rust's primitive types, as the probe spells them (`c_uchar`, `u32`: see the `using` below). */
namespace rust {
using c_void = void; using c_char = char; using c_schar = signed char; using c_uchar = unsigned char;
using c_short = short; using c_ushort = unsigned short; using c_int = int; using c_uint = unsigned int;
using c_long = long; using c_ulong = unsigned long; using c_longlong = long long;
using c_ulonglong = unsigned long long; using c_float = float; using c_double = double;
using f32 = float; using f64 = double; using usize = std::size_t; using isize = std::ptrdiff_t;
using i8 = std::int8_t; using i16 = std::int16_t; using i32 = std::int32_t; using i64 = std::int64_t;
using u8 = std::uint8_t; using u16 = std::uint16_t; using u32 = std::uint32_t; using u64 = std::uint64_t;
}
template <class R, class... A> using fn = R (*)(A...);
template <class R, class... A> using vfn = R (*)(A..., ...);
template <class T, std::size_t N> using array = T[N];
template <std::size_t N> struct parameters;
template <bool V> struct variadic;
/* Where an assertion is: the probe's entry and the part of it (0 the whole type, 1 the parameter
   count, 2 variadic-ness, 3 the return type, 4 + I parameter I), for the messages. */
template <std::size_t Entry, std::size_t Part> struct where;
/* What `at` gives past the last parameter. */
struct no_parameter;
template <std::size_t I, class... A> struct at { using type = no_parameter; };
template <class T, class... A> struct at<0, T, A...> { using type = T; };
template <std::size_t I, class T, class... A> struct at<I, T, A...> { using type = typename at<I - 1, A...>::type; };
/* A function pointer type taken apart (an incomplete type for anything else). */
template <class F> struct sig;
template <class R, bool V, class... A> struct sig_of {
    using ret = R;
    using count = parameters<sizeof...(A)>;
    using is_variadic = variadic<V>;
    static constexpr std::size_t arity = sizeof...(A);
    template <std::size_t I> using param = typename at<I, A...>::type;
};
template <class R, class... A> struct sig<R (*)(A...)> : sig_of<R, false, A...> {};
template <class R, class... A> struct sig<R (*)(A..., ...)> : sig_of<R, true, A...> {};
/* Compiles only when the header's type and the bindings' are one type; the diagnostics print
   `check<WHERE, header<H>, bindings<R>>`, each type's bounds marked. */
template <class T> struct header;
template <class T> struct bindings;
template <class Where, class Header, class Rust> struct check;
template <class Where, class H, class R> struct check<Where, header<H>, bindings<R>> {
    static_assert(std::is_same<H, R>::value,
                  "cuda.h and the Rust bindings differ: see check<where, header's type, bindings' type>");
    static constexpr bool value = true;
};
template <class Where, class H, class R> using same = check<Where, header<H>, bindings<R>>;
/* Each part of a signature, so that the diagnostics name the parameter: instantiated only where
   the whole types differ. */
template <std::size_t E, class H, class R, class I = std::make_index_sequence<sig<R>::arity>> struct parts;
template <std::size_t E, class H, class R, std::size_t... I> struct parts<E, H, R, std::index_sequence<I...>> {
    using HS = sig<H>;
    using RS = sig<R>;
    static constexpr bool value =
        same<where<E, 1>, typename HS::count, typename RS::count>::value &&
        same<where<E, 2>, typename HS::is_variadic, typename RS::is_variadic>::value &&
        same<where<E, 3>, typename HS::ret, typename RS::ret>::value &&
        (true && ... && same<where<E, 4 + I>, typename HS::template param<I>, typename RS::template param<I>>::value);
};
template <std::size_t E, class H, class R> struct signature {
    static constexpr bool value =
        std::conditional<std::is_same<H, R>::value, std::true_type, parts<E, H, R>>::type::value &&
        same<where<E, 0>, H, R>::value;
};
/* A typedef as bindgen binds it: a function type (vdpau.h's `VdpGetProcAddress`) as the pointer
   to it, the type C programs pass; any other type as itself. */
template <class T> using bound = typename std::conditional<std::is_function<T>::value, T *, T>::type;
constexpr bool streq(const char *a, const char *b) {
    return *a == *b && (*a == '\0' || streq(a + 1, b + 1));
}
}
/* The bindings' primitive types by their Rust names; the header declares none of these names. */
using namespace cdsys::rust;
#define CDSYS_STR(x) #x
#define CDSYS_XSTR(x) CDSYS_STR(x)
/* A function (HEADER `decltype(&::cuX)`) or PFN typedef against the bindings' pointer type. */
#define CDSYS_SIGNATURE(entry, header, ...) \
    static_assert(cdsys::signature<entry, header, __VA_ARGS__>::value, "entry " #entry);
/* Another typedef against the bindings' type. */
#define CDSYS_TYPE(entry, name, ...) \
    static_assert(cdsys::same<cdsys::where<entry, 0>, cdsys::bound<name>, __VA_ARGS__>::value, "entry " #entry);
/* The name the header's macros turn the C spelling `c` into, against the bindings' `target`. */
#define CDSYS_SPELLING(c, target, view) \
    static_assert(cdsys::streq(CDSYS_XSTR(c), #target), \
                  "C spelling " #c " (" view "): the bindings bind " #target ", cuda.h names " CDSYS_XSTR(c));
