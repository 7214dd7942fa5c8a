#!/usr/bin/env python3
"""Checks neuron-inspect --json with Python's own JSON parser: the structure
must be complete and self-consistent, then prints one line per program."""
import json
import sys

d = json.load(open(sys.argv[1]))
for key in ('format', 'target', 'compiler', 'content_hash', 'sections', 'entry_points', 'programs'):
    assert key in d, key
names = {s['name'] for s in d['sections']}
assert {'meta', 'strings', 'const'} <= names, names
for s in d['sections']:
    assert s['offset'] >= 128 and s['size'] >= 0
print('format', d['format'], 'target', d['target'], 'programs', len(d['programs']))
for p in d['programs']:
    total = sum(s['instructions'] for s in p['streams'])
    per_kernel = sum(sum(k['roofline']['instructions']) + k['roofline']['dma_count'] for k in p['kernels'])
    assert total == per_kernel, (total, per_kernel)
    k = p['kernels'][0]
    r = k['roofline']
    assert r['predicted_ns'] >= max(r['tensor_ns'], r['vector_ns'], r['scalar_ns'], r['hbm_ns'])
    print(p['name'], k['kind'], r['verdict'], 'intensity %.1f' % r['arithmetic_intensity'])
