// A small image classifier written for a browser against the WebNN API only (navigator.ml,
// MLGraphBuilder, tensors, dispatch): a LeNet-style network for 28x28 greyscale images,
// conv 5x5 (8) -> relu -> max pool 2x2 -> conv 5x5 (16) -> relu -> max pool 2x2 -> dense 10 ->
// softmax. It is loaded unchanged as a classic script (a <script> tag in a page); the weights
// come from `weights`, a Float32Array per layer, as a page would fetch them.
/* global navigator, MLGraphBuilder */
class DigitClassifier {
  // The layers' shapes, in the order the weights are given.
  static get layers() {
    return [
      ['conv1', [8, 1, 5, 5]], ['bias1', [8]],
      ['conv2', [16, 8, 5, 5]], ['bias2', [16]],
      ['dense', [256, 10]], ['bias3', [10]],
    ];
  }

  async load(weights, contextOptions) {
    this.context = await navigator.ml.createContext(contextOptions);
    const builder = new MLGraphBuilder(this.context);
    const desc = (shape) => ({ dataType: 'float32', shape });
    const w = {};
    for (const [name, shape] of DigitClassifier.layers)
      w[name] = builder.constant(desc(shape), weights[name]);
    const image = builder.input('image', desc([1, 1, 28, 28]));
    const block = (x, filter, bias) => builder.maxPool2d(
      builder.relu(builder.conv2d(x, filter, { bias })), { windowDimensions: [2, 2], strides: [2, 2] });
    const features = block(block(image, w.conv1, w.bias1), w.conv2, w.bias2);  // [1, 16, 4, 4]
    const flat = builder.reshape(features, [1, 256]);
    const logits = builder.add(builder.matmul(flat, w.dense), w.bias3);
    this.graph = await builder.build({ probabilities: builder.softmax(logits, 1) });
    this.input = await this.context.createTensor({ ...desc([1, 1, 28, 28]), writable: true });
    this.output = await this.context.createTensor({ ...desc([1, 10]), readable: true });
  }

  // The ten class probabilities and the most likely class of a 28x28 image (Float32Array).
  async classify(pixels) {
    this.context.writeTensor(this.input, pixels);
    this.context.dispatch(this.graph, { image: this.input }, { probabilities: this.output });
    const probabilities = new Float32Array(await this.context.readTensor(this.output));
    let best = 0;
    for (let i = 1; i < 10; ++i) if (probabilities[i] > probabilities[best]) best = i;
    return { probabilities, label: best };
  }
}
