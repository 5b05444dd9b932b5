// llama.cpp's prefill and decode speed on a GGUF file (tools/bench/write_gguf.py), through the
// prebuilt CPU build of the npm package node-llama-cpp (no GPU, no build: it picks the ggml
// library for this CPU's x86 level). For tools/bench/bench_llm.sh.
//   node llama_cpp_times.mjs NODE_MODULES_DIR MODEL.gguf THREADS PROMPT_LEN NEW_TOKENS
// Greedy from the same seeded prompt as llm_bench (ids 0..255 from a fixed generator do not
// matter for speed); prints one line per round, then the best, and the generated ids.
import path from "node:path";
import {pathToFileURL} from "node:url";

const [modulesDir, modelPath, threadsArg, promptArg, newArg] = process.argv.slice(2);
const threads = Number(threadsArg), promptLen = Number(promptArg), newTokens = Number(newArg);
const {getLlama} = await import(pathToFileURL(path.join(modulesDir, "node-llama-cpp", "dist", "index.js")).href);
const llama = await getLlama({gpu: false, build: "never", maxThreads: threads, logLevel: "error"});
const model = await llama.loadModel({modelPath, gpuLayers: 0});
let seed = 1n;  // BigInt: the products exceed a double's 53 bits
const prompt = Array.from({length: promptLen}, () => Number((seed = (seed * 1103515245n + 12345n) % 2147483648n) % 256n));
let best = {prefill: Infinity, decode: Infinity}, ids = [];
for (let round = 0; round < 3; ++round) {
  const context = await model.createContext({contextSize: 512, batchSize: 512, threads: {ideal: threads, min: threads}});
  const sequence = context.getSequence();
  let start = performance.now();
  await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1));
  const generated = [];
  let prefill = 0;
  for await (const token of sequence.evaluate(prompt.slice(-1), {temperature: 0})) {
    generated.push(token);
    if (generated.length === 1) {  // the prompt's last token and the first choice close the prefill
      prefill = performance.now() - start;
      start = performance.now();
    }
    if (generated.length === newTokens + 1) break;
  }
  const decode = performance.now() - start;
  best = {prefill: Math.min(best.prefill, prefill), decode: Math.min(best.decode, decode)};
  ids = generated;
  await context.dispose();
}
console.log(`llama.cpp (node-llama-cpp, ${llama.cpuMathCores ?? "?"} cores seen), ${threads} thread(s): ` +
            `prefill ${(promptLen / best.prefill * 1000).toFixed(1)} tokens/s, decode ${(newTokens / best.decode * 1000).toFixed(1)} tokens/s`);
console.log(`llama.cpp greedy ids: ${ids.slice(0, 8).join(",")} ...`);
await model.dispose();
await llama.dispose();
