#pragma once
/// \file
/// Reductions, scans and statistics as single instructions (nki.isa, dst first): across partitions, scans along
/// the free dimension, batch-norm statistics, and the top-8 helpers. See `tessera isa` for each definition.

#include "tessera/dsl/Operators.h"
#include "tessera/dsl/Ops.h"

#include <optional>

namespace tsr::isa {

/// dst[0, f] = op over p of data[p, f], op add or max, on the GpSimd engine (nki.isa.tensor_partition_reduce).
/// dst is [1, F]; both tiles in SBUF.
void tensor_partition_reduce(const Tile &dst, tessera::isa::AluOp op, const Operand &data, Loc loc = Loc::current());

/// dst[p, i] = (data0[p, i] <op0> dst[p, i-1]) <op1> data1[p, i], starting from `initial` (a [P, 1] tile),
/// reverse0/reverse1 swapping each operator's operands (nki.isa.tensor_tensor_scan).
void tensor_tensor_scan(const Tile &dst, const Operand &data0, const Operand &data1, const Operand &initial,
                        tessera::isa::AluOp op0, tessera::isa::AluOp op1, bool reverse0 = false, bool reverse1 = false,
                        Loc loc = Loc::current());
/// As above, starting every partition from the number `initial` (nki.isa.tensor_tensor_scan with a float).
void tensor_tensor_scan(const Tile &dst, const Operand &data0, const Operand &data1, float initial,
                        tessera::isa::AluOp op0, tessera::isa::AluOp op1, bool reverse0 = false, bool reverse1 = false,
                        Loc loc = Loc::current());

/// dst[p, 0:6] = (count, mean, M2) of data[p, even indices], then of data[p, odd indices] (nki.isa.bn_stats);
/// M2 is the sum of squared deviations. At most bn_stats_max_elements per partition: combine chunks with bn_aggr.
void bn_stats(const Tile &dst, const Operand &data, Loc loc = Loc::current());

/// dst[p, 0:2] = (mean, population variance) of the (count, mean, M2) triples in data[p, :] (nki.isa.bn_aggr).
void bn_aggr(const Tile &dst, const Operand &data, Loc loc = Loc::current());

/// dst[p, 0:8] = the 8 largest values of src[p, :], in descending order (nki.isa.max8).
void max8(const Tile &dst, const Operand &src, Loc loc = Loc::current());

/// dst[p, j] = the index of the first element of data[p, :] equal to vals[p, j]; dst is a u32 [P, 8] tile
/// (nki.isa.nc_find_index8).
void nc_find_index8(const Tile &dst, const Operand &data, const Operand &vals, Loc loc = Loc::current());

/// dst = data with the first match of each vals[p, j], in turn, replaced by `imm`; dst_idx, when given (a u32
/// [P, 8] tile), receives each match's index (nki.isa.nc_match_replace8).
void nc_match_replace8(const Tile &dst, const Operand &data, const Operand &vals, float imm,
                       const std::optional<Tile> &dst_idx = std::nullopt, Loc loc = Loc::current());

} // namespace tsr::isa
