package main

// defaultConsumers is how many consumers `make soak` runs by default: what
// fits in the 23 GiB of the 2-CPU development machine, one consumer (its
// kube-apiserver, its share of the etcd and its controller) taking about
// 320 MiB; 100 would need about 31 GiB (docs/benchmarks.md, Soak).
const defaultConsumers = 60
