#!/bin/sh
# memplan-trace import --from pytorch-et on hostile and malformed input:
# deep nesting, numbers out of range, wrong types and missing keys each
# exit 3 with one error that names the file, the node (id and name) and the
# field, or the byte offset for broken JSON, and leave no trace behind.
. tests/cli/lib.sh

need_python3

# mk NAME PYTHON-EXPR: writes $T/NAME.json from a node list edited by the
# expression (n: a good aten::mm node; doc: the document), or raw text
mk() {
	python3 - "$T/$1.json" "$2" <<'EOF2'
import json, sys
path, expr = sys.argv[1], sys.argv[2]
def node():
    return {"id": 5, "name": "aten::mm", "ctrl_deps": 2,
            "inputs": {"values": [[10, 3, 0, 4, 4, "cuda:0"], [11, 4, 0, 4, 4, "cuda:0"]],
                       "shapes": [[2, 2], [2, 2]], "types": ["Tensor(float)", "Tensor(float)"]},
            "outputs": {"values": [[12, 6, 0, 4, 4, "cuda:0"]], "shapes": [[2, 2]],
                        "types": ["Tensor(float)"]},
            "attrs": [{"name": "rf_id", "type": "uint64", "value": 1},
                      {"name": "op_schema", "type": "string",
                       "value": "aten::mm(Tensor self, Tensor mat2) -> Tensor"}]}
n = node()
doc = {"schema": "1.1.1-chakra.0.0.4", "pid": 1, "time": "t", "start_ts": 0,
       "nodes": [{"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1},
                 n, {"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 1}],
       "finish_ts": 1}
raw = None
exec(expr)
with open(path, "w") as f:
    f.write(raw if raw is not None else json.dumps(doc))
EOF2
}

# bad NAME DESCRIPTION EXPECTED-TEXT: import exits 3, says EXPECTED-TEXT
bad() {
	expect 3 "$2: exits 3" memplan-trace import --from pytorch-et "$T/$1.json" -o "$T/$1.trace"
	has "$T/err" "memplan-trace: error: cannot read execution trace '$T/$1.json': $3" "$2: the error names where"
	[ ! -e "$T/$1.trace" ]
	ok $? "$2: no trace is left behind"
}

mk good ''
expect 0 "the well-formed document imports" \
	memplan-trace import --from pytorch-et "$T/good.json" -o "$T/good.trace"

mk deep 'n["inputs"]["values"][0] = json.loads("[" * 100 + "]" * 100)'
bad deep "nesting 100 deep" "at byte "
grep -q "nesting deeper than 64 levels" "$T/err"
ok $? "deep nesting: the limit is named"
mk hugeint 'raw = json.dumps(doc).replace("[11, 4, 0, 4, 4", "[11, 99999999999999999999999, 0, 4, 4")'
bad hugeint "a storage id beyond 64 bits" \
	"node 5 (aten::mm), field 'inputs[1]': element 1 (storage_id) is a number, not a non-negative integer"
mk hugefloat 'raw = json.dumps(doc).replace("\"pid\": 1", "\"pid\": 1e999")'
bad hugefloat "a number beyond the double range" "at byte"
grep -q "the number 1e999 is out of range" "$T/err"
ok $? "a number beyond the double range: the number is quoted"
mk hugesize 'n["inputs"]["values"][0][3] = 2**62'
bad hugesize "a tensor of 2^64 bytes" "node 5 (aten::mm), field 'inputs[0]': offset 0, numel 4611686018427387904 and itemsize 4 reach past 2^62 bytes"
mk idstring 'n["id"] = "5"'
bad idstring "a node id that is a string" "nodes[1], field 'id': a string, not a node id"
mk noname 'del n["name"]'
bad noname "a node without a name" "node 5 (?), field 'name': absent, not a string"
mk valuestype 'n["inputs"]["values"] = {"a": 1}'
bad valuestype "input values that are an object" "node 5 (aten::mm), field 'inputs': values are an object, not an array"
mk tensorshort 'n["inputs"]["values"][1] = [11, 4, 0]'
bad tensorshort "a tensor value of three elements" "node 5 (aten::mm), field 'inputs[1]': a tensor value has 3 elements, not 6 (5 in schema 1.0.0)"
mk tensorstr 'n["outputs"]["values"][0][3] = "4"'
bad tensorstr "a numel that is a string" "node 5 (aten::mm), field 'outputs[0]': element 3 (numel) is a string, not a non-negative integer"
mk typesshort 'n["inputs"]["types"] = ["Tensor(float)"]'
bad typesshort "fewer types than values" "node 5 (aten::mm), field 'inputs': 2 values but 1 types"
mk rfstring 'n["attrs"][0]["value"] = "1"'
bad rfstring "an rf_id that is a string" "node 5 (aten::mm), field 'rf_id': a string where an integer was expected"
mk parentneg 'n["ctrl_deps"] = -3'
bad parentneg "a negative parent" "node 5 (aten::mm), field 'ctrl_deps': -3 is below 0"
mk dupid 'doc["nodes"].insert(2, node())'
bad dupid "two nodes with one id" "node 5 (aten::mm), field 'id': a second node with this id"
mk noschema 'del doc["schema"]'
bad noschema "no schema field" "no field 'schema': not an execution trace"
mk nonodes 'del doc["nodes"]'
bad nonodes "no nodes field" "no field 'nodes'"
mk truncated 'raw = json.dumps(doc)[:-40]'
bad truncated "a truncated file" "at byte "
grep -q "the input ends where" "$T/err"
ok $? "a truncated file: says the input ends early"
mk trailing 'raw = json.dumps(doc) + " {}"'
bad trailing "data after the document" "at byte"
grep -q "'{' where the end of the input was expected" "$T/err"
ok $? "data after the document: named"
mk comma 'raw = json.dumps(doc).replace("}], \"finish_ts\"", "},], \"finish_ts\"")'
bad comma "a trailing comma" "at byte"
mk nan 'raw = json.dumps(doc).replace("\"start_ts\": 0", "\"start_ts\": NaN")'
bad nan "NaN" "at byte"
mk ctrl 'raw = json.dumps(doc).replace("\"time\": \"t\"", "\"time\": \"a\tb\"")'
bad ctrl "a raw tab inside a string" "at byte"
grep -q "a control character (0x09) inside a string" "$T/err"
ok $? "a raw tab inside a string: named"
mk surrogate 'raw = json.dumps(doc).replace("\"time\": \"t\"", "\"time\": \"\\ud800x\"")'
bad surrogate "a lone high surrogate" "at byte"
printf '\037\213garbage' >"$T/badgz.json"
bad badgz "gzip magic and garbage" "corrupt gzip data"
: >"$T/empty.json"
bad empty "an empty file" "at byte 0: the input ends where an object was expected"

done_testing
