/*! \file printer.h
 *  \brief TVMScript text for IRModules, functions and expressions, in the style the seeds
 *         print (@I.ir_module, @T.prim_func, T.grid, T.axis.remap, @R.function, R.dataflow()).
 */
#ifndef MLC_IR_GRAPH_PRINTER_H_
#define MLC_IR_GRAPH_PRINTER_H_

#include <string>
#include <vector>

#include "ir/graph/module.h"

namespace mlc {

struct PrintOptions {
  /*! \brief Emit the "# from tvm.script import ..." header lines. */
  bool print_imports = true;
  /*! \brief Append the constants' data as a metadata section the parser reads back
   *         (otherwise a "# Metadata omitted" line is printed when there are constants). */
  bool show_meta = false;
};

std::string PrintModule(const IRModule& mod, const PrintOptions& options = {});
/*! \brief A standalone PrimFunc, as te.create_prim_func(...).show() prints it. */
std::string PrintPrimFunc(const tir::PrimFunc& func, const std::string& name, const PrintOptions& options = {});
/*! \brief A standalone graph-level function. */
std::string PrintFunction(const relax::Function& func, const std::string& name, const PrintOptions& options = {});

/*! \brief One-line forms, for error messages. */
std::string PrintPrimExpr(const tir::PrimExpr& expr);
std::string PrintExpr(const relax::Expr& expr);
std::string PrintStructInfo(const relax::StructInfo& sinfo);

/*! \brief Python's repr() of a float ("0.0", "1e-05", "0.1"), which the text format uses. */
std::string FormatPythonFloat(double value);

/*! \brief The constants of a module in the order the printer numbers them
 *         (metadata["relax.expr.Constant"][i]). */
std::vector<relax::Expr> CollectConstants(const IRModule& mod);

}  // namespace mlc

#endif  // MLC_IR_GRAPH_PRINTER_H_
