// A module printed by `tessera compile --emit nc` is saved and simulated by `tessera sim` without the C++
// kernel; with --locations the kernel's source lines survive the round trip.
// RUN: %tessera compile add --shape M=128,N=256 --emit nc --locations > %t.mlir
// RUN: FileCheck %s --check-prefix=LOC < %t.mlir
// RUN: %tessera sim %t.mlir --json | FileCheck %s
// RUN: not %tessera sim %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING

// LOC: nc.dma_copy {{.*}} loc([[LOAD:#loc[0-9]+]])
// LOC: nc.tensor_tensor "add" {{.*}} loc([[ADD:#loc[0-9]+]])
// LOC-DAG: [[LOAD]] = loc("{{.*}}add.cpp":{{[0-9]+}}:{{[0-9]+}})
// LOC-DAG: [[ADD]] = loc("{{.*}}add.cpp":{{[0-9]+}}:{{[0-9]+}})

// CHECK: "hbm_bytes": 393216
// CHECK: "kernel": "add"
// CHECK: "ok": true
// CHECK: "target": "trn2"

// MISSING: error: cannot read '{{.*}}sim-roundtrip.mlir.missing'
