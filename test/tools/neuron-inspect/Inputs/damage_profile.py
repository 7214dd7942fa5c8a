"""Writes a damaged copy of a profile's instructions.json: damage_profile.py
IN OUT MODE. MODE is one of: notjson (text cut after its first key), program (rename
the first program), stream (drop an instruction of the first stream),
streamname (rename the first stream to one no NeuronCore has), time (make one
instruction time a pair instead of [start, duration, wait]), negative (a
negative duration), text (a time that is a string), twice (list the first
program twice), alias (spell the first queue stream with a leading zero)."""

import json
import sys

src, dst, mode = sys.argv[1:4]
text = open(src).read()
if mode == "notjson":
    open(dst, "w").write('{"format": "neuronc-instruction-times-1",')
    sys.exit(0)
doc = json.loads(text)
prog = doc["programs"][0]
streams = prog["streams"]
first = sorted(streams)[0]
if mode == "program":
    prog["name"] = "nosuchprogram"
elif mode == "stream":
    streams[first] = streams[first][:-1]
elif mode == "streamname":
    streams["q99"] = streams.pop(first)
elif mode == "time":
    streams[first][0] = streams[first][0][:2]
elif mode == "negative":
    streams[first][0][1] = -1.0
elif mode == "text":
    streams[first][0][0] = "soon"
elif mode == "twice":
    doc["programs"].append(json.loads(json.dumps(prog)))
elif mode == "alias":
    q = sorted(k for k in streams if k.startswith("q"))[0]
    first = "q0" + q[1:]
    streams[first] = streams.pop(q)
else:
    sys.exit("unknown mode " + mode)
json.dump(doc, open(dst, "w"))
print("damaged stream", first)
