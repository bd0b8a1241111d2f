#pragma once
/// \file
/// Internal to the compiler: turns the first error MLIR reports while a context is in use into a tessera::Error
/// at the kernel's source line, so callers outside the compiler never see MLIR diagnostics; remarks become notes.

#include "tessera/compiler/Compiler.h"
#include "tessera/compiler/ToProgram.h"
#include "tessera/isa/Error.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

namespace tessera::compiler {

/// A note attached to an error that starts with this becomes the tessera::Error's hint (how to fix it), as in
/// `op->emitError() << what; diag.attachNote() << kHintNote << how;` (a lit test expects it as a note).
inline constexpr llvm::StringLiteral kHintNote = "hint: ";

class ErrorCollector {
public:
  /// `who` names the component in messages ("the compiler", "the golden model"); `prefix` starts each message.
  ErrorCollector(mlir::MLIRContext &ctx, std::string who, std::string prefix = {})
      : who_(std::move(who)), prefix_(std::move(prefix)),
        handler_(&ctx, [this](mlir::Diagnostic &d) {
          if (d.getSeverity() == mlir::DiagnosticSeverity::Error && !error_)
            error_ = Error(prefix_ + messageOf(d), sourceOf(d.getLocation()), hintOf(d));
          if (d.getSeverity() == mlir::DiagnosticSeverity::Remark) notes_.push_back(noteOf(d));
          return mlir::success();
        }) {}

  /// The remarks reported so far, each "file:line: message" (just the message where the location is unknown).
  const std::vector<std::string> &notes() const { return notes_; }

  /// Throws the first error collected, or one saying that `stage` failed without a message.
  [[noreturn]] void raise(const char *stage) {
    if (error_ && error_->message().find(kInstructionLimitMessage) != std::string::npos)
      throw InstructionLimitError(error_->message(), error_->where());
    if (error_) throw *error_;
    throw Error(fmt::format("{}'s {} stage failed without a message", who_, stage));
  }

private:
  /// `d`'s message in its author's terms. At a line of an .mlir file the ops are the user's own, and MLIR's
  /// "'nc.tensor_copy' op ..." names one. At a kernel's line that op is the compiler's: its name gives way to the
  /// tsr:: call that made it ("broadcast_to: no engine of trn2 can run it: ..."), or goes where the op may come from
  /// several calls (tile.copy: tsr::copy, assign or isa::tensor_copy) or the message names the instruction itself
  /// ("nc_matmul takes float8_e4m3, ..." for 'nc.matmul').
  static std::string messageOf(mlir::Diagnostic &d) {
    std::string text = d.str();
    const llvm::StringRef message(text);
    const size_t end = message.find("' op ");
    if (!message.starts_with("'") || end == llvm::StringRef::npos) return text;
    const llvm::StringRef op = message.substr(1, end - 1), rest = message.substr(end + 5);
    auto nameChar = [](char c) { return llvm::isAlnum(c) || c == '_' || c == '.'; };
    const bool opName = !op.empty() && llvm::all_of(op, nameChar);
    if (!opName || llvm::StringRef(sourceOf(d.getLocation()).file).ends_with(".mlir")) return text;
    const llvm::StringRef call = llvm::StringSwitch<llvm::StringRef>(op)
                                     .Case("tile.alloc", "tile")
                                     .Case("tile.view", "slice")
                                     .Case("tile.load", "load")
                                     .Case("tile.store", "store")
                                     .Case("tile.transpose", "transpose")
                                     .Case("tile.broadcast", "broadcast_to")
                                     .Case("tile.scan", "scan")
                                     .Case("tile.fill_where", "fill")
                                     .Default("");
    return call.empty() ? rest.str() : (call + ": " + rest).str();
  }

  /// The text of `d`'s notes that start with kHintNote, without it.
  static std::string hintOf(mlir::Diagnostic &d) {
    std::string hint;
    for (mlir::Diagnostic &note : d.getNotes()) {
      const std::string text = note.str();
      if (!llvm::StringRef(text).starts_with(kHintNote)) continue;
      hint += (hint.empty() ? "" : "; ") + text.substr(kHintNote.size());
    }
    return hint;
  }

  static std::string noteOf(mlir::Diagnostic &d) {
    SourceLoc where = sourceOf(d.getLocation());
    return where.known() ? where.str() + ": " + d.str() : d.str();
  }

  std::string who_, prefix_;
  std::vector<std::string> notes_;
  mlir::ScopedDiagnosticHandler handler_;
  std::optional<Error> error_;
};

} // namespace tessera::compiler
