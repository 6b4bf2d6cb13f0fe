import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assemblePipeline, type FeatureModule } from './feature-module.ts';
import type { CallObserver } from './pipeline.ts';
import { type AnswerStage, CONTINUE, type Stage } from './stage.ts';

const stage = (name: string): Stage => ({ name, run: () => CONTINUE });
const answerStage = (name: string): AnswerStage => ({ name, run: (_ctx, result) => result });
const observer = (name: string): CallObserver => ({ name, onCallFinished: () => undefined });
const names = (items: readonly { name: string }[]) => items.map((item) => item.name);

describe('assemblePipeline', () => {
  it('orders call and answer stages by their places, whatever the order of the modules', () => {
    const cache: FeatureModule = {
      name: 'cache',
      call: { 'cache-lookup': stage('lookup'), 'cache-prefetch': stage('prefetch') },
      answer: { 'cache-store': answerStage('store') },
    };
    const limits: FeatureModule = { name: 'limits', call: { admission: stage('admit') } };
    const hooks: FeatureModule = {
      name: 'hooks',
      call: { 'before-upstream': stage('before') },
      answer: { 'after-upstream': answerStage('after') },
    };
    const records: FeatureModule = { name: 'records', answer: { capture: answerStage('capture') } };
    const lists = assemblePipeline([records, cache, limits, hooks], []);
    assert.deepEqual(names(lists.call), ['prefetch', 'admit', 'before', 'lookup']);
    assert.deepEqual(names(lists.answer), ['after', 'store', 'capture']);
  });

  it('runs the modules pre-flight stages before the checks, and the observers in module order', () => {
    const lists = assemblePipeline(
      [
        { name: 'limits', observers: [observer('settle')] },
        { name: 'state', preflight: [stage('expand')] },
        { name: 'records', observers: [observer('record')] },
        { name: 'telemetry', observers: [observer('telemetry')] },
      ],
      [stage('scope'), stage('model')],
    );
    assert.deepEqual(names(lists.preflight), ['expand', 'scope', 'model']);
    assert.deepEqual(names(lists.observers ?? []), ['settle', 'record', 'telemetry']);
  });

  it('leaves out a feature with nothing to plug in (the response cache when it is off)', () => {
    const lists = assemblePipeline(
      [{ name: 'response-cache' }, { name: 'limits', call: { admission: stage('admit') } }],
      [],
    );
    assert.deepEqual(names(lists.call), ['admit']);
    assert.deepEqual(lists.answer, []);
  });
});
