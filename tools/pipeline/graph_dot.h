/*! \file graph_dot.h
 *  \brief The graph of a graph-level function as Graphviz dot: one node per parameter and
 *         binding, edges from operands; a call of a fused kernel is drawn as a cluster holding
 *         one node per block of that kernel (the operators fused into it).
 */
#ifndef MLC_TOOLS_PIPELINE_GRAPH_DOT_H_
#define MLC_TOOLS_PIPELINE_GRAPH_DOT_H_

#include <string>

#include "ir/graph/module.h"

namespace mlc {
namespace pipeline {

std::string FunctionToDot(const IRModule& mod, const std::string& func_name);

}  // namespace pipeline
}  // namespace mlc

#endif  // MLC_TOOLS_PIPELINE_GRAPH_DOT_H_
