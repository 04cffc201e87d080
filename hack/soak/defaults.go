package main

// defaultConsumers is how many consumers `make soak` runs by default, as the
// soak asks: on the 2-CPU, 23 GiB development machine one consumer (its
// capped kube-apiserver, its share of the etcd and its controller) takes
// about 130 MiB (proportional set size; docs/benchmarks.md, Soak).
const defaultConsumers = 100
