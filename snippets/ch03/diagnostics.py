# Three ways to ask Dynamo where and why it split or recompiled a function: fullgraph=True
# (an error at the first graph break), the logs that TORCH_LOGS names, and explain.
import logging
import re

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def clip_relu(x):  # chapter 3's graph break: a Python `if` on a tensor's value
    s = x.abs().max()
    if s > 1:
        x = x / s
    return x.relu()


def scale_relu(x):  # chapter 3's recompile: called with two sizes
    return (x * 2 + 1).relu()


def readable(text):
    """A log line without the folder the snippet ran from (it differs between runs)."""
    return re.sub(r'(/[^\s:"]+/)([^/\s:"]+\.py)', r"\2", text)


torch.manual_seed(0)
x = torch.randn(1000, device=device)

# 1. fullgraph=True: no pieces; the first graph break is an error that names its line.
try:
    torch.compile(clip_relu, fullgraph=True)(x)
    fullgraph_error = None
except torch._dynamo.exc.Unsupported as error:
    fullgraph_error = f"{type(error).__name__}: {str(error).splitlines()[0]}"
    lines = str(error).split("from user code:")[-1].splitlines()
    # The break's file and line, then its code.
    where = [readable(line.strip()) for line in lines if line.strip()][:2]
print("--- torch.compile(clip_relu, fullgraph=True)")
print(fullgraph_error)
print(f"  at {where[0]}: {where[1]}")

# 2. The logs. TORCH_LOGS="graph_breaks,recompiles,guards" before the run does the same as
# this call. They go to stderr: the snippet also keeps them, and prints the lines that matter.
torch._dynamo.reset()
torch._logging.set_logs(graph_breaks=True, recompiles=True, guards=True)
kept: dict[str, list[str]] = {"graph_breaks": [], "recompiles": [], "guards": []}


class Keep(logging.Handler):
    def emit(self, record):
        kept[record.name.rsplit(".__", 1)[-1]].extend(record.getMessage().splitlines())


for name, logger in list(logging.Logger.manager.loggerDict.items()):
    if isinstance(logger, logging.Logger) and name.rsplit(".__", 1)[-1] in kept:
        logger.addHandler(Keep())

torch.compile(clip_relu)(x)
compiled = torch.compile(scale_relu)
for n in (1000, 2000):
    compiled(torch.randn(n, device=device))
torch._logging.set_logs()  # logs off again

breaks = [
    readable(line)
    for line in kept["graph_breaks"]
    if line.startswith("Graph break") or "Reason:" in line
]
recompiles = [readable(line.strip()) for line in kept["recompiles"] if line.strip()][:3]
# The guards on scale_relu's argument x: its sizes, and what the dynamic version assumes.
size_guards = [
    re.sub(r"DispatchKeySet\([^)]*\), ", "", line.split("+- ", 1)[-1].split("  #")[0].strip())
    for line in kept["guards"]
    if "scale_relu" in line
    and ("TENSOR_MATCH: check_tensor(L['x']" in line or "L['x'].size()[0]" in line)
]
print('--- TORCH_LOGS="graph_breaks": clip_relu')
print("\n".join(breaks))
print('--- TORCH_LOGS="recompiles": scale_relu, sizes 1000 then 2000')
print("\n".join(recompiles))
print("--- TORCH_LOGS=\"guards\": scale_relu's guards on x, first and second compilation")
print("\n".join(size_guards))
# Dynamo's own note on why the dynamic version starts at 2.
notes = [
    line.split("(user code shown", 1)[-1].split("--", 1)[-1].strip().removesuffix(")")
    for line in kept["guards"]
    if "0/1 specialization" in line
]
print(f"  ({notes[0]})" if notes else "")

# 3. explain: counts the graphs and breaks without compiling anything.
explanation = torch._dynamo.explain(clip_relu)(x)
explain_reason = explanation.break_reasons[0].reason.splitlines()[0]
print("--- torch._dynamo.explain(clip_relu)")
print(
    f"graphs: {explanation.graph_count}, graph breaks: {explanation.graph_break_count}, "
    f"reason: {explain_reason}"
)

results = {
    "device": device,
    "fullgraph_error": fullgraph_error,
    "fullgraph_where": where,
    "graph_break_log": breaks,
    "recompile_log": recompiles,
    "size_guards": size_guards,
    "specialization_note": notes[0] if notes else None,
    "explain_graph_count": explanation.graph_count,
    "explain_break_count": explanation.graph_break_count,
    "explain_reason": explain_reason,
}
