import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countDump, isGcFunction } from '../../bench/callgrind-gc.ts';

/**
 * A dump shaped as a scavenge under `--single-threaded-gc` dumps it: the collection runs its job
 * through the platform's job API (a function whose name is not the GC's, called only by it) and
 * both sides copy with memcpy. 1,000 instructions, 600 of them the GC's.
 */
const DUMP = `version: 1
creator: callgrind-3.19.0
positions: line
events: Ir
summary: 1000

fn=(1) main
1 100
cfn=(2) v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, v8::internal::GarbageCollectionReason, v8::GCCallbackFlags)
calls=1 10
1 600
cfn=(3) memcpy
calls=2 0
+1 30
cfn=(6) Builtins_JSEntry
calls=1 0
* 270

fn=(2)
1 50
cfn=(4) v8::platform::DefaultJobState::Join()
calls=1 0
1 480
cfn=(3)
calls=1 0
1 70

fn=(4)
1 20
cfn=(5) v8::internal::ScavengerCollector::JobTask::Run(v8::JobDelegate*)
calls=1 0
1 460

fn=(5)
1 460

fn=(3)
1 100

fn=(6)
1 270

totals: 1000
`;

describe("the GC's share of a callgrind dump", () => {
  it("counts each instruction once: the GC's functions, those only it calls, and its share of shared ones", () => {
    // Summing the inclusive costs of calls into the GC would read 1,060: the job counted twice.
    assert.deepEqual(countDump(DUMP), { total: 1000, gc: 600 });
  });

  it("knows V8's collection work by name, a template's return type before it included", () => {
    for (const name of [
      'v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace)',
      'void heap::base::Stack::SetMarkerAndCallbackImpl<v8::internal::Heap::CollectGarbage()::{lambda()#2}>(heap::base::Stack*, void*, void const*)',
      'v8::internal::IncrementalMarkingJob::Task::RunInternal()',
      'v8::internal::Sweeper::SweepingState<(v8::internal::Sweeper::SweepingScope)0>::FinishSweeping()',
      'cppgc::internal::MarkerBase::FinishMarking(cppgc::EmbedderStackState)',
    ]) {
      assert.ok(isGcFunction(name), name);
    }
    for (const name of [
      'memcpy',
      'v8::internal::Heap::AllocateExternalBackingStore(...)',
      'Builtins_JSEntry',
    ]) {
      assert.ok(!isGcFunction(name), name);
    }
  });
});
