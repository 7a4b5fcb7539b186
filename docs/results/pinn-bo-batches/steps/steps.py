"""Per-step cost of PINN-BO runs from their journals: proposal and training seconds, epochs,
whether the fit was cold, its final loss; then the maximum and mean proposal time.

    python steps.py RUN_DIR [RUN_DIR ...]
"""
import json, sys
for path in sys.argv[1:]:
    rows = [json.loads(l) for l in open(path + '/journal.jsonl') if l.startswith('{"index"')]
    steps = [r for r in rows if r['phase'] != 'init']
    print(path, 'steps', len(steps), 'best', min(r['observed']['objective'] for r in rows))
    for r in steps:
        d = r['diagnostics']
        print(f"  t={r['index']:3d} propose {r['propose_seconds']:6.2f}s train {d.get('train_seconds', 0):6.2f}s epochs {d.get('epochs')} cold {d.get('cold_fit')} loss {d.get('train_loss', 0):.3g}")
    ps = [r['propose_seconds'] for r in steps]
    print('  max', max(ps), 'mean', sum(ps)/len(ps))
