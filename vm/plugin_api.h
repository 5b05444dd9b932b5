/*! \file plugin_api.h
 *  \brief The C ABI of runtime-function plug-ins: shared libraries the VM loads at run time
 *         (`run --plugin libfoo.so`) that register functions callable by name from a model
 *         (`R.call_dps_packed("foo.bar", ...)`).
 *
 *  A plug-in exports one symbol, `mlc_plugin_init`, which the loader calls with a registration
 *  callback. Functions follow destination passing: inputs first, then the outputs to fill,
 *  all as DLPack DLTensors. A function returns 0 on success, or non-zero after writing a
 *  message into `error` (at most `error_len` bytes, NUL-terminated).
 *
 *    #include "vm/plugin_api.h"
 *    static int MyRelu(DLTensor** args, int num_args, char* error, int error_len) { ... }
 *    extern "C" void mlc_plugin_init(MlcRegisterFunction reg, void* ctx) {
 *      reg(ctx, "my.relu", MyRelu);
 *    }
 *
 *  Only C types cross the boundary, so a plug-in needs no symbol from the VM and may be built
 *  by any compiler.
 */
#ifndef MLC_VM_PLUGIN_API_H_
#define MLC_VM_PLUGIN_API_H_

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*MlcRuntimeFunction)(DLTensor** args, int num_args, char* error, int error_len);
typedef void (*MlcRegisterFunction)(void* ctx, const char* name, MlcRuntimeFunction fn);
typedef void (*MlcPluginInit)(MlcRegisterFunction reg, void* ctx);

#define MLC_PLUGIN_INIT_SYMBOL "mlc_plugin_init"

#ifdef __cplusplus
}
#endif

#endif  // MLC_VM_PLUGIN_API_H_
