#!/bin/sh
# memplan-trace import --from pytorch-et on what real PyTorch writes: one
# training step of an MLP, a ResNet-18 (a small conv net without
# torchvision), a 2-layer transformer encoder with Adam, and 3 steps under a
# profiler schedule, run here on the CPU under the execution-trace observer
# and the profiler with profile_memory=True (tests/import/torch_step.py).
# The ET is PyTorch's own file; the profiler's memory records are PyTorch's
# own Kineto trace where it has one with addresses, else re-laid in Kineto's
# layout from the profiler's event tree (each model's .layout says which).
# tests/import/torch_figures.py computes from those files alone the
# storages, allocations, the peak of live bytes in the window and the
# storages live at its start; import, info, summary and plan compile are
# held to them.  The tensors are on the CPU: a trace of host memory, said so.
. tests/cli/lib.sh

need_torch
gen=tests/import/torch_step.py
fig=tests/import/torch_figures.py
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
meta() { has "$T/out" "\"$1\":\"$2\"" "$3"; }

for m in mlp cnn transformer sched; do
	"$PY" "$gen" $m "$T" 2>"$T/err"
	ok $? "$m: a real training step under the ET observer and the profiler"
	echo "# $m: $m.et.json is PyTorch's own; $m.kineto.json is $(cat "$T/$m.layout" 2>/dev/null)"
	"$PY" "$fig" "$T/$m.et.json" "$T/$m.kineto.json" >"$T/$m.fig" 2>"$T/err"
	ok $? "$m: the figures, from the files alone"
	e=$T/$m.fig
	echo "# $m: $(tr '\n' ' ' <"$e")"
	expect 0 "$m: import with the profiler's memory records" \
		memplan-trace import --from pytorch-et "$T/$m.et.json" --kineto "$T/$m.kineto.json" \
		-o "$T/$m.trace"
	expect 0 "$m: info" memplan-trace info --json "$T/$m.trace"
	has "$T/out" "\"buffers\":$(value buffers "$e")," \
		"$m: a buffer per storage live at the start and per allocation, none twice"
	has "$T/out" "\"persistent\":$(value persistent "$e")," \
		"$m: persistent: live at the start, or never freed in the window"
	has "$T/out" "\"peak_bytes\":$(value peak "$e")," \
		"$m: the peak of live bytes in the window, $(value peak "$e") bytes"
	has "$T/out" "\"lower_bound_bytes\":$(value lower_bound "$e")," \
		"$m: the transient buffers' peak"
	meta device "$(value space "$e")" "$m: the memory the tensors are in"
	meta memory host "$m: host memory, said so"
	meta et.leaf_ops "$(value leaf_ops "$e")" "$m: every leaf operator, the observer's roots not among them"
	meta et.profiler_steps "$(value steps "$e")" "$m: a range per ProfilerStep node"
	meta kineto.memory_events "$(value memory_events "$e")" "$m: every memory record of that memory"
	meta kineto.outputs_without_alloc 0 "$m: every fresh output found its allocation"
	meta kineto.ops_not_found 0 "$m: every operator found its profiler record"
	expect 0 "$m: summary" memplan-analyze summary "$T/$m.trace"
	has "$T/out" "($(value peak "$e") bytes)" "$m: summary's peak is the same"
	has "$T/out" "source:         pytorch-et (cpu tensors: host memory)" \
		"$m: and the summary says it is host memory"
	expect 0 "$m: plan compile" memplan-plan compile "$T/$m.trace" -o "$T/$m.plan" \
		--deterministic
	transient=$(($(value buffers "$e") - $(value persistent "$e")))
	has "$T/out" "$transient buffers, lower bound" "$m: the plan places the $transient transient buffers"
	has "$T/out" "($(value lower_bound "$e")), pool" "$m: above the same lower bound"
	pool=$(sed -n 's/.*, pool [^(]*(\([0-9]*\)).*/\1/p' "$T/out")
	[ -n "$pool" ] && [ "$pool" -ge "$(value lower_bound "$e")" ]
	ok $? "$m: and the pool ($pool) holds it"
	expect 0 "$m: the ET alone imports" \
		memplan-trace import --from pytorch-et "$T/$m.et.json" -o "$T/$m-alone.trace"
	expect 0 "$m: info of the ET alone" memplan-trace info --json "$T/$m-alone.trace"
	meta device cpu "$m: alone, host memory too"
	meta inferred "sizes,frees" "$m: alone, sizes and frees inferred"
done

# what export_chrome_trace() wrote: without Kineto, a legacy array
if [ "$(cat "$T/mlp.layout")" = re-laid ]; then
	expect 3 "PyTorch's own chrome trace without Kineto is refused as a profiler trace" \
		memplan-trace import --from pytorch-et "$T/mlp.et.json" --kineto "$T/mlp.chrome.json" \
		-o "$T/chrome.trace"
	has "$T/err" "it is a Chrome trace array, what export_chrome_trace() writes without Kineto" \
		"and says what the file is and what is needed"
	[ ! -e "$T/chrome.trace" ]
	ok $? "and writes nothing"
else
	skip "the legacy chrome trace array" "this PyTorch has Kineto: its chrome trace is Kineto's"
fi
expect 2 "--device cpu with another format is a usage error" \
	memplan-trace import --from nsys-sqlite "$T/mlp.et.json" --device cpu -o "$T/x.trace"
expect 2 "--device 0 on a trace of host memory says where its tensors are" \
	memplan-trace import --from pytorch-et "$T/mlp.et.json" --device 0 -o "$T/x.trace"
has "$T/err" "has no tensors on cuda:0 (its tensors are on cpu)" "and names them"
expect 0 "--device cpu takes the host's tensors" \
	memplan-trace import --from pytorch-et "$T/mlp.et.json" --device cpu -o "$T/x.trace"

done_testing
