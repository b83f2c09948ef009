/* SPDX-License-Identifier: MIT */
/*
 * zoo_transformer.c - the transformer models of the synthetic zoo, as the
 * Hugging Face definitions run them with eager attention: BERT-base with
 * its masked-LM head (BertForMaskedLM) and GPT-2 124M (GPT2LMHeadModel),
 * both with the output projection tied to the word embeddings.  Parameter
 * and module names follow HF; shapes come from the configurations.
 */
#include "synth_internal.h"

#define HIDDEN 768
#define HEADS 12
#define LAYERS 12

/* The layers built: all twelve, or a cut-down model's depth. */
static int layers(const struct synth_graph *g)
{
	return g->depth ? (int)g->depth : LAYERS;
}

/* Attention core on q, k, v viewed as (B*heads, S, d): scores, scale, mask,
 * softmax, dropout, context, and heads merged back to (B, S, H).  mask_add:
 * an additive mask (BERT) else a causal where() on causal (GPT-2). */
static int attention(struct synth_graph *g, const char *p, int q, int k,
		     int v, int mask_add, int causal)
{
	int64_t md[3] = { g->batch, g->seq, HIDDEN };
	int s = synth_op_bmm(g, synth_name(g, "%s.scores", p), q, k, 1);
	s = synth_op_scale(g, synth_name(g, "%s.scale", p), s);
	if (mask_add >= 0)
		s = synth_op_add(g, synth_name(g, "%s.mask", p), s, mask_add, 0);
	else
		s = synth_op_where(g, synth_name(g, "%s.causal_mask", p), s,
				   causal);
	s = synth_op_softmax(g, synth_name(g, "%s.softmax", p), s);
	s = synth_op_dropout(g, synth_name(g, "%s.attn_dropout", p), s);
	int c = synth_op_bmm(g, synth_name(g, "%s.context", p), s, v, 0);
	return synth_op_copy(g, synth_name(g, "%s.merge_heads", p), c, 3, md);
}

static int lm_loss(struct synth_graph *g, int logits, int labels)
{
	int loss = synth_op_cross_entropy(g, "loss", logits, labels);
	synth_set_loss(g, loss);
	return g->err;
}

int synth_zoo_bert_base(struct synth_graph *g)
{
	const int64_t vocab = 30522, maxpos = 512;
	int64_t bs[2] = { g->batch, g->seq }, pos[2] = { 1, g->seq };
	int64_t hd[3] = { (int64_t)g->batch * HEADS, g->seq, HIDDEN / HEADS };
	int64_t md[4] = { g->batch, 1, 1, g->seq };
	int ids = synth_add_input(g, "input_ids", 2, bs, 8);
	int am = synth_add_input(g, "attention_mask", 2, bs, 8);
	int labels = synth_add_input(g, "labels", 2, bs, 8);

	int64_t wd[2] = { vocab, HIDDEN }, pd[2] = { maxpos, HIDDEN },
		td[2] = { 2, HIDDEN };
	int word = synth_add_param(g, "bert.embeddings.word_embeddings.weight",
				   2, wd);
	int posw = synth_add_param(
		g, "bert.embeddings.position_embeddings.weight", 2, pd);
	int typew = synth_add_param(
		g, "bert.embeddings.token_type_embeddings.weight", 2, td);
	int pids = synth_add_state(g, "bert.embeddings.position_ids", 2, pos, 8);
	int tids = synth_op_make(g, "zeros", "bert.embeddings.token_type_ids",
				 -1, 2, bs, 8);
	int ext = synth_op_make(g, "extended_attention_mask",
				"bert.extended_attention_mask", am, 4, md,
				g->elem);

	int x = synth_op_embedding(g, "bert.embeddings.word_embeddings", ids,
				   word);
	int t = synth_op_embedding(g, "bert.embeddings.token_type_embeddings",
				   tids, typew);
	int pe = synth_op_embedding(g, "bert.embeddings.position_embeddings",
				    pids, posw);
	x = synth_op_add(g, "bert.embeddings.add", x, t, 0);
	x = synth_op_add(g, "bert.embeddings.add_position", x, pe, 1);
	x = synth_op_layernorm(g, "bert.embeddings.LayerNorm", x);
	x = synth_op_dropout(g, "bert.embeddings.dropout", x);

	for (int l = 0; l < layers(g); l++) {
		const char *p = synth_name(g, "bert.encoder.layer.%d", l);
		const char *sa = synth_name(g, "%s.attention.self", p);
		int q = synth_op_linear(g, synth_name(g, "%s.query", sa), x,
					HIDDEN, 1);
		int k = synth_op_linear(g, synth_name(g, "%s.key", sa), x,
					HIDDEN, 1);
		int v = synth_op_linear(g, synth_name(g, "%s.value", sa), x,
					HIDDEN, 1);
		q = synth_op_view(g, synth_name(g, "%s.query.heads", sa), q, 3,
				  hd);
		k = synth_op_view(g, synth_name(g, "%s.key.heads", sa), k, 3,
				  hd);
		v = synth_op_view(g, synth_name(g, "%s.value.heads", sa), v, 3,
				  hd);
		int a = attention(g, sa, q, k, v, ext, -1);
		const char *ao = synth_name(g, "%s.attention.output", p);
		a = synth_op_linear(g, synth_name(g, "%s.dense", ao), a, HIDDEN,
				    1);
		a = synth_op_dropout(g, synth_name(g, "%s.dropout", ao), a);
		a = synth_op_add(g, synth_name(g, "%s.residual", ao), a, x, 0);
		a = synth_op_layernorm(g, synth_name(g, "%s.LayerNorm", ao), a);
		int f = synth_op_linear(
			g, synth_name(g, "%s.intermediate.dense", p), a,
			4 * HIDDEN, 1);
		f = synth_op_gelu(g, synth_name(g, "%s.intermediate.act", p), f);
		f = synth_op_linear(g, synth_name(g, "%s.output.dense", p), f,
				    HIDDEN, 1);
		f = synth_op_dropout(g, synth_name(g, "%s.output.dropout", p), f);
		f = synth_op_add(g, synth_name(g, "%s.output.residual", p), f, a,
				 0);
		x = synth_op_layernorm(g, synth_name(g, "%s.output.LayerNorm", p),
				       f);
	}

	/* MLM head (no pooler): transform, then the decoder tied to the word
	 * embeddings with its own bias, over every position. */
	x = synth_op_linear(g, "cls.predictions.transform.dense", x, HIDDEN, 1);
	x = synth_op_gelu(g, "cls.predictions.transform.act", x);
	x = synth_op_layernorm(g, "cls.predictions.transform.LayerNorm", x);
	int64_t vd[1] = { vocab };
	int bias = synth_add_param(g, "cls.predictions.bias", 1, vd);
	x = synth_op_linear_w(g, "cls.predictions.decoder", x, word, bias);
	return lm_loss(g, x, labels);
}

int synth_zoo_gpt2(struct synth_graph *g)
{
	const int64_t vocab = 50257, npos = 1024;
	int64_t bs[2] = { g->batch, g->seq }, sd[1] = { g->seq };
	int64_t hd[3] = { (int64_t)g->batch * HEADS, g->seq, HIDDEN / HEADS };
	int64_t cm[2] = { npos, npos };
	int ids = synth_add_input(g, "input_ids", 2, bs, 8);
	int labels = synth_add_input(g, "labels", 2, bs, 8);

	int64_t wd[2] = { vocab, HIDDEN }, pd[2] = { npos, HIDDEN };
	int wte = synth_add_param(g, "transformer.wte.weight", 2, wd);
	int wpe = synth_add_param(g, "transformer.wpe.weight", 2, pd);
	int pids = synth_op_make(g, "arange", "transformer.position_ids", -1, 1,
				 sd, 8);
	int x = synth_op_embedding(g, "transformer.wte", ids, wte);
	int pe = synth_op_embedding(g, "transformer.wpe", pids, wpe);
	x = synth_op_add(g, "transformer.add_position", x, pe, 0);
	x = synth_op_dropout(g, "transformer.drop", x);

	for (int l = 0; l < layers(g); l++) {
		const char *p = synth_name(g, "transformer.h.%d", l);
		const char *at = synth_name(g, "%s.attn", p);
		/* HF's per-layer causal mask buffer (1, 1, 1024, 1024) bool */
		int causal = synth_add_state(g, synth_name(g, "%s.bias", at), 2,
					     cm, 1);
		int h = synth_op_layernorm(g, synth_name(g, "%s.ln_1", p), x);
		h = synth_op_linear(g, synth_name(g, "%s.c_attn", at), h,
				    3 * HIDDEN, 1);
		int qkv[3];
		synth_op_split(g, synth_name(g, "%s.split_heads", at), h, 3, 3,
			       hd, qkv);
		h = attention(g, at, qkv[0], qkv[1], qkv[2], -1, causal);
		h = synth_op_linear(g, synth_name(g, "%s.c_proj", at), h, HIDDEN,
				    1);
		h = synth_op_dropout(g, synth_name(g, "%s.resid_dropout", at), h);
		x = synth_op_add(g, synth_name(g, "%s.residual_attn", p), h, x,
				 0);
		h = synth_op_layernorm(g, synth_name(g, "%s.ln_2", p), x);
		h = synth_op_linear(g, synth_name(g, "%s.mlp.c_fc", p), h,
				    4 * HIDDEN, 1);
		h = synth_op_gelu(g, synth_name(g, "%s.mlp.act", p), h);
		h = synth_op_linear(g, synth_name(g, "%s.mlp.c_proj", p), h,
				    HIDDEN, 1);
		h = synth_op_dropout(g, synth_name(g, "%s.mlp.dropout", p), h);
		x = synth_op_add(g, synth_name(g, "%s.residual_mlp", p), x, h,
				 0);
	}
	x = synth_op_layernorm(g, "transformer.ln_f", x);
	x = synth_op_linear_w(g, "lm_head", x, wte, -1);
	return lm_loss(g, x, labels);
}
