// What kind of build the tests run in: instrumented builds (AddressSanitizer, ThreadSanitizer)
// run several times slower, so wall-clock figures are only asserted in uninstrumented builds.
#ifndef TILESCHED_TESTS_BUILD_KIND_H_
#define TILESCHED_TESTS_BUILD_KIND_H_

namespace tilesched::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kInstrumentedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kInstrumentedBuild = true;
#else
inline constexpr bool kInstrumentedBuild = false;
#endif
#else
inline constexpr bool kInstrumentedBuild = false;
#endif

// How many times slower than a Release build the code under test may run.
inline constexpr double kSlowdown = kInstrumentedBuild ? 4 : 1;

}  // namespace tilesched::testing

#endif  // TILESCHED_TESTS_BUILD_KIND_H_
