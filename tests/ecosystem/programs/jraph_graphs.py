"""jraph graph networks as their users write them: GraphsTuple batches,
message passing with segment sums, haiku/flax update functions."""

import flax.linen as nn
import haiku as hk
import jax
import jax.numpy as jnp
import jraph
import numpy as np

from ecosystem import integers, normal, program

K = jax.random.PRNGKey


def _graph(n_node=(5, 7), n_edge=(8, 12), d_node=6, d_edge=3, d_glob=2, seed=140):
    nodes = sum(n_node)
    senders, receivers = [], []
    off = 0
    rng = np.random.default_rng(seed)
    for n, e in zip(n_node, n_edge):
        senders.append(rng.integers(0, n, e) + off)
        receivers.append(rng.integers(0, n, e) + off)
        off += n
    return jraph.GraphsTuple(
        nodes=normal(nodes, d_node, seed=seed + 1),
        edges=normal(sum(n_edge), d_edge, seed=seed + 2),
        senders=np.concatenate(senders).astype(np.int32),
        receivers=np.concatenate(receivers).astype(np.int32),
        globals=normal(len(n_node), d_glob, seed=seed + 3),
        n_node=np.array(n_node, np.int32), n_edge=np.array(n_edge, np.int32))


def _gn(graph):
    def mlp(f):
        return lambda x: hk.nets.MLP([16, f])(x)

    @jraph.concatenated_args
    def edge_fn(x):
        return mlp(8)(x)

    @jraph.concatenated_args
    def node_fn(x):
        return mlp(8)(x)

    @jraph.concatenated_args
    def global_fn(x):
        return mlp(4)(x)

    net = jraph.GraphNetwork(update_edge_fn=edge_fn, update_node_fn=node_fn,
                             update_global_fn=global_fn)
    return net(graph)


_GN = hk.without_apply_rng(hk.transform(_gn))


@program("jraph_graph_network", "jraph", args=lambda: (_GN.init(K(0), _graph()), _graph()),
         note="jraph.GraphNetwork (edge, node, global updates; segment_sum aggregation), haiku MLPs")
def jraph_graph_network(params, graph):
    return _GN.apply(params, graph)


def _gcn(graph):
    gcn = jraph.GraphConvolution(update_node_fn=hk.Linear(16), add_self_edges=True)
    graph = gcn(graph)
    graph = graph._replace(nodes=jax.nn.relu(graph.nodes))
    graph = jraph.GraphConvolution(update_node_fn=hk.Linear(4))(graph)
    return graph.nodes


_GCN = hk.without_apply_rng(hk.transform(_gcn))


@program("jraph_gcn", "jraph", args=lambda: (_GCN.init(K(1), _graph(seed=150)), _graph(seed=150)),
         note="two GraphConvolution layers, symmetric normalisation, self edges")
def jraph_gcn(params, graph):
    return _GCN.apply(params, graph)


def _gat(graph):
    def attention_logit_fn(sender_attr, receiver_attr, edges):
        x = jnp.concatenate([sender_attr, receiver_attr], axis=-1)
        return hk.Linear(1)(x)

    gat = jraph.GAT(attention_query_fn=hk.Linear(8), attention_logit_fn=attention_logit_fn)
    return gat(graph).nodes


_GAT = hk.without_apply_rng(hk.transform(_gat))


@program("jraph_gat", "jraph", args=lambda: (_GAT.init(K(2), _graph(seed=160)), _graph(seed=160)),
         note="graph attention: segment_softmax over incoming edges (segment_max, segment_sum)")
def jraph_gat(params, graph):
    return _GAT.apply(params, graph)


@program("jraph_segment_ops", "jraph",
         args=lambda: (normal(30, 4, seed=170), integers(30, seed=171, high=6)),
         note="jraph.segment_sum/mean/max/min/softmax, normalized/variance")
def jraph_segment_ops(data, seg):
    return dict(
        sum=jraph.segment_sum(data, seg, 6),
        mean=jraph.segment_mean(data, seg, 6),
        max=jraph.segment_max(data, seg, 6),
        min=jraph.segment_min(data, seg, 6),
        softmax=jraph.segment_softmax(data, seg, 6),
        var=jraph.segment_variance(data, seg, 6),
        norm=jraph.segment_normalize(data, seg, 6),
    )


class InteractionNet(nn.Module):
    @nn.compact
    def __call__(self, graph):
        def edge_fn(e, s, r, g):
            return nn.Dense(8)(jnp.concatenate([e, s, r], -1))

        def node_fn(n, sent, recv, g):
            return nn.Dense(6)(jnp.concatenate([n, recv], -1))

        net = jraph.GraphNetwork(update_edge_fn=edge_fn, update_node_fn=node_fn)
        for _ in range(3):
            graph = net(graph)
        return graph.nodes, graph.edges


def _in_args():
    g = _graph(seed=180)
    return InteractionNet().init(K(3), g), g


@program("jraph_interaction_network_flax", "jraph", args=_in_args,
         note="a flax module wrapping jraph.GraphNetwork, 3 rounds of message passing")
def jraph_interaction_network_flax(params, graph):
    return InteractionNet().apply(params, graph)


def _batch_pad_args():
    graph = _graph(n_node=(4, 3, 5), n_edge=(6, 4, 7), seed=190)
    # jraph pads on the host, before the jitted step (pad_with_graphs is not traceable)
    return jraph.pad_with_graphs(graph, n_node=16, n_edge=24, n_graph=4),


@program("jraph_padded_batch_pool", "jraph", args=_batch_pad_args,
         note="a batch padded with pad_with_graphs: padding masks, per-graph mean pooling")
def jraph_padded_batch_pool(padded):
    mask = jraph.get_node_padding_mask(padded)
    n_graph = padded.n_node.shape[0]
    gid = jnp.repeat(jnp.arange(n_graph), padded.n_node, total_repeat_length=16)
    summed = jax.ops.segment_sum(padded.nodes * mask[:, None], gid, n_graph)
    counts = jnp.maximum(padded.n_node, 1)[:, None]
    messages = jraph.segment_sum(padded.nodes[padded.senders], padded.receivers, 16)
    return summed / counts, mask, jraph.get_graph_padding_mask(padded), messages


def _deepsets(graph):
    net = jraph.DeepSets(update_node_fn=lambda n, g: jax.nn.relu(hk.Linear(8)(n)),
                         update_global_fn=lambda x: hk.Linear(3)(x),
                         aggregate_nodes_for_globals_fn=jraph.segment_mean)
    return net(graph).globals


_DS = hk.without_apply_rng(hk.transform(_deepsets))


@program("jraph_deepsets", "jraph", args=lambda: (_DS.init(K(4), _graph(seed=200)), _graph(seed=200)),
         note="jraph.DeepSets: node MLP, segment_mean per graph, global head")
def jraph_deepsets(params, graph):
    return _DS.apply(params, graph)


@program("jraph_gnn_train_grad", "jraph", args=lambda: (_GCN.init(K(5), _graph(seed=210)),
                                                        _graph(seed=210),
                                                        integers(12, seed=211, high=4)),
         rtol=5e-4, atol=5e-5, note="node classification loss and gradient through a GCN")
def jraph_gnn_train_grad(params, graph, labels):
    def loss(p):
        logits = _GCN.apply(p, graph)
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], 1))
    return jax.value_and_grad(loss)(params)
