import FuzzSupport

#if canImport(Glibc)
    import Glibc
#endif

exit(runFuzzer(fuzzReference))
