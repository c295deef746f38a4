// Package perf holds kongsync's end-to-end benchmarks: the full build (snapshot, translate,
// encode, hash) and each of its stages, on workloads from internal/workload. They live in their
// own package so that they compile and run independently of any one package's unit tests.
package perf
