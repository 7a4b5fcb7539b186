"""How a run of the README's main job (the beam, problems/beam.pde) spends its budget, from
its journal (issue 51, target e): the final regret against the exact optimum, how many
evaluations lie within 1e-3 of an earlier one, how many after evaluation 20 measured a point
whose true value is above the initial design's median, and how many sit at the optimum.

    cargo run -- solve problems/beam.pde --out RUN --quiet
    python repeats.py RUN [RUN ...]"""
import json, sys
for path in sys.argv[1:]:
    recs=[json.loads(l) for l in open(path+'/journal.jsonl').readlines()[1:]]
    xs=[r['x'][0] for r in recs]
    clean=[(r.get('clean') or r['observed'])['objective'] for r in recs]
    init_med=sorted(clean[:10])[5]
    near=sum(1 for i in range(1,len(xs)) if any(abs(xs[i]-xs[j])<1e-3 for j in range(i)))
    above=sum(1 for i in range(20,len(xs)) if clean[i]>init_med)
    at_opt=sum(1 for i in range(10,len(xs)) if abs(xs[i]-0.8837)<1e-3)
    best=min(clean)
    print(f"{path}: regret {best+5.94239633614588:.3g}, within 1e-3 of an earlier point {near}, after 20 above the design's median {above}, at the optimum {at_opt}")
