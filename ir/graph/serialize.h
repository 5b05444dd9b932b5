/*! \file serialize.h
 *  \brief IRModule <-> Protobuf (ir/graph/ir.proto), and the *.irpb files stages exchange.
 */
#ifndef MLC_IR_GRAPH_SERIALIZE_H_
#define MLC_IR_GRAPH_SERIALIZE_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/graph/ir.pb.h"
#include "ir/graph/module.h"

namespace mlc {

/*! \brief The version this build writes and the only one it reads. */
/*! \brief 2: sealed (support/sealed_file.h: kind, version and SHA-256 around the message).
 *         3: shape values (ShapeExpr, ShapeStructInfo) as expression node ids. 4: constants in a
 *         data section after the message (support/data_section.h). */
inline constexpr uint32_t kIRFormatVersion = 4;
proto::ModuleProto ModuleToProto(const IRModule& mod);
/*! \brief Rebuilds the module; any malformed table (dangling or forward id, wrong node kind,
 *         unknown operator, wrong version) is an error naming the function and node id. */
absl::StatusOr<IRModule> ModuleFromProto(const proto::ModuleProto& proto);
/*! \brief The same, moving the constants' bytes out of `proto` instead of copying them. */
absl::StatusOr<IRModule> ModuleFromProto(proto::ModuleProto&& proto);

/*! \brief Serialized bytes, and back. */
std::string SerializeModule(const IRModule& mod);
absl::StatusOr<IRModule> DeserializeModule(absl::string_view bytes, const std::string& source_name = "<bytes>");

/*! \brief Writes `path` atomically. */
absl::Status SaveModule(const IRModule& mod, const std::string& path);
absl::StatusOr<IRModule> LoadModule(const std::string& path);

/*! \brief Tensor data <-> TensorProto (shared with the executable format). */
void TensorToProto(const TensorData& tensor, proto::TensorProto* out);
absl::StatusOr<TensorData> TensorFromProto(const proto::TensorProto& proto);
absl::StatusOr<TensorData> TensorFromProto(proto::TensorProto&& proto);  // moves the bytes

}  // namespace mlc

#endif  // MLC_IR_GRAPH_SERIALIZE_H_
