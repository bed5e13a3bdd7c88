// Graphs the browser tests import: big layered graphs without position hints.

/** A layered graph of `n` nodes without position hints: start, layers of tools, goal. */
export function layered(n, width) {
  const nodes = [{ id: 'start', tool: false }];
  const edges = [];
  const tools = n - 2;
  const layers = Math.ceil(tools / width);
  const id = (l, i) => `t${l}_${i}`;
  const size = (l) => Math.min(width, tools - l * width);
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < size(l); i++) {
      nodes.push({ id: id(l, i), label: `Tool ${l}.${i} lookup`, stage: `s${l}` });
      if (l === 0) edges.push({ from: 'start', to: id(l, i), cost: 1 + (i % 3) });
      else {
        const below = size(l - 1);
        edges.push({ from: id(l - 1, i % below), to: id(l, i), cost: 1 + ((l + i) % 4) });
        edges.push({ from: id(l - 1, ((i % below) + 1 + ((i * 5) % Math.max(1, below - 1))) % below), to: id(l, i), cost: 2 + (i % 5) / 2 });
      }
    }
  }
  nodes.push({ id: 'goal', tool: false });
  for (let i = 0; i < size(layers - 1); i++) edges.push({ from: id(layers - 1, i), to: 'goal', cost: 1 });
  return { name: `layered ${n}`, start: 'start', goal: 'goal', nodes, edges };
}
