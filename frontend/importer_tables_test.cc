/*! \file importer_tables_test.cc
 *  \brief docs/importer_operators.md is the importers' converter registries, printed: every
 *         ONNX op_type (with the oldest opset whose definition the converter accepts) and every
 *         FX function, module and method key. A converter added without regenerating the file
 *         fails here; `UPDATE_GOLDENS=1 ./bazelw test //frontend:importer_tables_test` rewrites it.
 */
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontend/onnx/onnx_importer.h"
#include "frontend/torch/fx_importer.h"
#include "gtest/gtest.h"
#include "ir/testing/golden.h"

namespace mlc {
namespace {

std::string ImporterTables() {
  std::string out =
      "# Importer operator tables\n\n"
      "Generated from the converter registries (`OnnxConverterRegistry`, `FxConverterRegistry`) by\n"
      "`//frontend:importer_tables_test`, which fails when they and this file disagree; rewrite it with\n"
      "`UPDATE_GOLDENS=1 ./bazelw test //frontend:importer_tables_test`. What each converter supports of\n"
      "its operator (attributes, modes) is in [importers.md](importers.md); per-operator results of the\n"
      "onnx package's node tests are in [onnx_node_table.md](onnx_node_table.md).\n\n";
  std::vector<std::string> onnx = onnx_import::OnnxConverterRegistry::Global().OpTypes();
  absl::StrAppend(&out, "## ONNX (", onnx.size(), " op_types)\n\n",
                  "Opsets 11-17; a model of an older opset imports when each of its operators has had the definition\n"
                  "the converter implements since that opset.\n\n| op_type | from opset |\n|---|---|\n");
  for (const std::string& op : onnx)
    absl::StrAppend(&out, "| ", op, " | ", onnx_import::OldestOpsetWithSameDefinition(op), " |\n");
  const std::pair<fx::FxConverterRegistry::Kind, const char*> kinds[] = {
      {fx::FxConverterRegistry::kFunction, "call_function targets"},
      {fx::FxConverterRegistry::kModule, "call_module types"},
      {fx::FxConverterRegistry::kMethod, "call_method names"}};
  for (const auto& [kind, title] : kinds) {
    std::vector<std::string> keys = fx::FxConverterRegistry::Global().Keys(kind);
    absl::StrAppend(&out, "\n## PyTorch FX ", title, " (", keys.size(), ")\n\n");
    for (const std::string& k : keys) absl::StrAppend(&out, "- `", k, "`\n");
  }
  return out;
}

TEST(ImporterTables, TheDocumentIsTheRegistries) {
  absl::Status s = testing::CheckGolden("docs/importer_operators.md", ImporterTables());
  EXPECT_TRUE(s.ok()) << s.message();
}

}  // namespace
}  // namespace mlc
