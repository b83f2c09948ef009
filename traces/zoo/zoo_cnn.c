/* SPDX-License-Identifier: MIT */
/*
 * zoo_cnn.c - the convolutional models of the synthetic zoo, written as the
 * torchvision definitions run them (module names, layer order, in-place
 * ReLUs, stride on the 3x3 of ResNet v1.5's bottleneck).  Shapes are
 * computed from the layer lists; parameter counts match torchvision exactly.
 */
#include "synth_internal.h"

/* The batch (N x 3 x size x size, activation dtype) and labels (N, int64). */
static int cnn_inputs(struct synth_graph *g, int size, int *labels)
{
	int64_t xd[4] = { g->batch, 3, size, size }, yd[1] = { g->batch };
	int x = synth_add_input(g, "input", 4, xd, g->elem);
	*labels = synth_add_input(g, "labels", 1, yd, 8);
	return x;
}

static int cnn_loss(struct synth_graph *g, int logits, int labels)
{
	int loss = synth_op_cross_entropy(g, "loss", logits, labels);
	synth_set_loss(g, loss);
	return g->err;
}

static int conv_relu(struct synth_graph *g, const char *name, int x,
		     int cout, int k, int stride, int pad)
{
	x = synth_op_conv2d(g, name, x, cout, k, k, stride, stride, pad, pad,
			    1);
	return synth_op_relu(g, synth_name(g, "%s.relu", name), x, 1);
}

int synth_zoo_alexnet(struct synth_graph *g)
{
	int labels;
	int x = cnn_inputs(g, 224, &labels);
	x = conv_relu(g, "features.0", x, 64, 11, 4, 2);
	x = synth_op_maxpool(g, "features.2", x, 3, 2, 0);
	x = conv_relu(g, "features.3", x, 192, 5, 1, 2);
	x = synth_op_maxpool(g, "features.5", x, 3, 2, 0);
	x = conv_relu(g, "features.6", x, 384, 3, 1, 1);
	x = conv_relu(g, "features.8", x, 256, 3, 1, 1);
	x = conv_relu(g, "features.10", x, 256, 3, 1, 1);
	x = synth_op_maxpool(g, "features.12", x, 3, 2, 0);
	x = synth_op_adaptive_avgpool(g, "avgpool", x, 6, 6);
	x = synth_op_flatten(g, "flatten", x);
	x = synth_op_dropout(g, "classifier.0", x);
	x = synth_op_linear(g, "classifier.1", x, 4096, 1);
	x = synth_op_relu(g, "classifier.2", x, 1);
	x = synth_op_dropout(g, "classifier.3", x);
	x = synth_op_linear(g, "classifier.4", x, 4096, 1);
	x = synth_op_relu(g, "classifier.5", x, 1);
	x = synth_op_linear(g, "classifier.6", x, 1000, 1);
	return cnn_loss(g, x, labels);
}

int synth_zoo_vgg16(struct synth_graph *g)
{
	/* configuration "D"; 0 is a 2x2 max pool */
	static const int cfg[] = { 64,  64,  0,   128, 128, 0,   256,
				   256, 256, 0,   512, 512, 512, 0,
				   512, 512, 512, 0 };
	int labels;
	int x = cnn_inputs(g, 224, &labels);
	for (int i = 0, idx = 0; i < (int)(sizeof(cfg) / sizeof(cfg[0])); i++) {
		const char *name = synth_name(g, "features.%d", idx);
		if (cfg[i]) {
			x = conv_relu(g, name, x, cfg[i], 3, 1, 1);
			idx += 2;
		} else {
			x = synth_op_maxpool(g, name, x, 2, 2, 0);
			idx += 1;
		}
	}
	x = synth_op_adaptive_avgpool(g, "avgpool", x, 7, 7);
	x = synth_op_flatten(g, "flatten", x);
	x = synth_op_linear(g, "classifier.0", x, 4096, 1);
	x = synth_op_relu(g, "classifier.1", x, 1);
	x = synth_op_dropout(g, "classifier.2", x);
	x = synth_op_linear(g, "classifier.3", x, 4096, 1);
	x = synth_op_relu(g, "classifier.4", x, 1);
	x = synth_op_dropout(g, "classifier.5", x);
	x = synth_op_linear(g, "classifier.6", x, 1000, 1);
	return cnn_loss(g, x, labels);
}

/* conv (no bias) + BatchNorm (+ in-place ReLU): torchvision's pattern. */
static int conv_bn(struct synth_graph *g, const char *conv, const char *bn,
		   const char *relu, int x, int cout, int kh, int kw, int sh,
		   int sw, int ph, int pw)
{
	x = synth_op_conv2d(g, conv, x, cout, kh, kw, sh, sw, ph, pw, 0);
	x = synth_op_batchnorm(g, bn, x);
	if (relu)
		x = synth_op_relu(g, relu, x, 1);
	return x;
}

static int bottleneck(struct synth_graph *g, const char *p, int x, int width,
		      int stride, int downsample)
{
	int id = x;
	int y = conv_bn(g, synth_name(g, "%s.conv1", p),
			synth_name(g, "%s.bn1", p), synth_name(g, "%s.relu1", p),
			x, width, 1, 1, 1, 1, 0, 0);
	y = conv_bn(g, synth_name(g, "%s.conv2", p), synth_name(g, "%s.bn2", p),
		    synth_name(g, "%s.relu2", p), y, width, 3, 3, stride,
		    stride, 1, 1);
	y = conv_bn(g, synth_name(g, "%s.conv3", p), synth_name(g, "%s.bn3", p),
		    NULL, y, width * 4, 1, 1, 1, 1, 0, 0);
	if (downsample)
		id = conv_bn(g, synth_name(g, "%s.downsample.0", p),
			     synth_name(g, "%s.downsample.1", p), NULL, x,
			     width * 4, 1, 1, stride, stride, 0, 0);
	y = synth_op_add(g, synth_name(g, "%s.add", p), y, id, 1);
	return synth_op_relu(g, synth_name(g, "%s.relu3", p), y, 1);
}

/* torchvision's BasicBlock: two 3x3 convolutions, the stride on the first. */
static int basic_block(struct synth_graph *g, const char *p, int x, int width,
		       int stride, int downsample)
{
	int id = x;
	int y = conv_bn(g, synth_name(g, "%s.conv1", p),
			synth_name(g, "%s.bn1", p), synth_name(g, "%s.relu1", p),
			x, width, 3, 3, stride, stride, 1, 1);
	y = conv_bn(g, synth_name(g, "%s.conv2", p), synth_name(g, "%s.bn2", p),
		    NULL, y, width, 3, 3, 1, 1, 1, 1);
	if (downsample)
		id = conv_bn(g, synth_name(g, "%s.downsample.0", p),
			     synth_name(g, "%s.downsample.1", p), NULL, x, width,
			     1, 1, stride, stride, 0, 0);
	y = synth_op_add(g, synth_name(g, "%s.add", p), y, id, 1);
	return synth_op_relu(g, synth_name(g, "%s.relu2", p), y, 1);
}

/* ResNet-18: ResNet-50's stem and head, two basic blocks a stage (the
 * family's small member: graphs the exact search of `optimal` can take). */
int synth_zoo_resnet18(struct synth_graph *g)
{
	int labels;
	int x = cnn_inputs(g, 224, &labels);
	x = conv_bn(g, "conv1", "bn1", "relu", x, 64, 7, 7, 2, 2, 3, 3);
	x = synth_op_maxpool(g, "maxpool", x, 3, 2, 1);
	for (int l = 0; l < 4; l++) {
		int width = 64 << l;
		for (int b = 0; b < (g->depth ? (int)g->depth : 2); b++) {
			const char *p = synth_name(g, "layer%d.%d", l + 1, b);
			int stride = (b == 0 && l > 0) ? 2 : 1;
			x = basic_block(g, p, x, width, stride, b == 0 && l > 0);
		}
	}
	x = synth_op_adaptive_avgpool(g, "avgpool", x, 1, 1);
	x = synth_op_flatten(g, "flatten", x);
	x = synth_op_linear(g, "fc", x, 1000, 1);
	return cnn_loss(g, x, labels);
}

int synth_zoo_resnet50(struct synth_graph *g)
{
	static const int blocks[4] = { 3, 4, 6, 3 };
	int labels;
	int x = cnn_inputs(g, 224, &labels);
	x = conv_bn(g, "conv1", "bn1", "relu", x, 64, 7, 7, 2, 2, 3, 3);
	x = synth_op_maxpool(g, "maxpool", x, 3, 2, 1);
	for (int l = 0; l < 4; l++) {
		int width = 64 << l;
		int nb = g->depth && (int)g->depth < blocks[l] ? (int)g->depth
							      : blocks[l];
		for (int b = 0; b < nb; b++) {
			const char *p = synth_name(g, "layer%d.%d", l + 1, b);
			int stride = (b == 0 && l > 0) ? 2 : 1;
			x = bottleneck(g, p, x, width, stride, b == 0);
		}
	}
	x = synth_op_adaptive_avgpool(g, "avgpool", x, 1, 1);
	x = synth_op_flatten(g, "flatten", x);
	x = synth_op_linear(g, "fc", x, 1000, 1);
	return cnn_loss(g, x, labels);
}

/* Inception's BasicConv2d: conv (no bias) + BN(eps 1e-3) + ReLU. */
static int basic(struct synth_graph *g, const char *p, const char *name, int x,
		 int cout, int kh, int kw, int s, int ph, int pw)
{
	const char *q = *name ? synth_name(g, "%s.%s", p, name) : p;
	if (!q)
		return -1;
	return conv_bn(g, synth_name(g, "%s.conv", q),
		       synth_name(g, "%s.bn", q), synth_name(g, "%s.relu", q),
		       x, cout, kh, kw, s, s, ph, pw);
}

static int inception_a(struct synth_graph *g, const char *p, int x, int pf)
{
	int b[4];
	b[0] = basic(g, p, "branch1x1", x, 64, 1, 1, 1, 0, 0);
	b[1] = basic(g, p, "branch5x5_1", x, 48, 1, 1, 1, 0, 0);
	b[1] = basic(g, p, "branch5x5_2", b[1], 64, 5, 5, 1, 2, 2);
	b[2] = basic(g, p, "branch3x3dbl_1", x, 64, 1, 1, 1, 0, 0);
	b[2] = basic(g, p, "branch3x3dbl_2", b[2], 96, 3, 3, 1, 1, 1);
	b[2] = basic(g, p, "branch3x3dbl_3", b[2], 96, 3, 3, 1, 1, 1);
	b[3] = synth_op_avgpool(g, synth_name(g, "%s.avg_pool", p), x, 3, 1, 1);
	b[3] = basic(g, p, "branch_pool", b[3], pf, 1, 1, 1, 0, 0);
	return synth_op_cat(g, synth_name(g, "%s.cat", p), 4, b);
}

static int inception_b(struct synth_graph *g, const char *p, int x)
{
	int b[3];
	b[0] = basic(g, p, "branch3x3", x, 384, 3, 3, 2, 0, 0);
	b[1] = basic(g, p, "branch3x3dbl_1", x, 64, 1, 1, 1, 0, 0);
	b[1] = basic(g, p, "branch3x3dbl_2", b[1], 96, 3, 3, 1, 1, 1);
	b[1] = basic(g, p, "branch3x3dbl_3", b[1], 96, 3, 3, 2, 0, 0);
	b[2] = synth_op_maxpool(g, synth_name(g, "%s.max_pool", p), x, 3, 2, 0);
	return synth_op_cat(g, synth_name(g, "%s.cat", p), 3, b);
}

static int inception_c(struct synth_graph *g, const char *p, int x, int c7)
{
	int b[4];
	b[0] = basic(g, p, "branch1x1", x, 192, 1, 1, 1, 0, 0);
	b[1] = basic(g, p, "branch7x7_1", x, c7, 1, 1, 1, 0, 0);
	b[1] = basic(g, p, "branch7x7_2", b[1], c7, 1, 7, 1, 0, 3);
	b[1] = basic(g, p, "branch7x7_3", b[1], 192, 7, 1, 1, 3, 0);
	b[2] = basic(g, p, "branch7x7dbl_1", x, c7, 1, 1, 1, 0, 0);
	b[2] = basic(g, p, "branch7x7dbl_2", b[2], c7, 7, 1, 1, 3, 0);
	b[2] = basic(g, p, "branch7x7dbl_3", b[2], c7, 1, 7, 1, 0, 3);
	b[2] = basic(g, p, "branch7x7dbl_4", b[2], c7, 7, 1, 1, 3, 0);
	b[2] = basic(g, p, "branch7x7dbl_5", b[2], 192, 1, 7, 1, 0, 3);
	b[3] = synth_op_avgpool(g, synth_name(g, "%s.avg_pool", p), x, 3, 1, 1);
	b[3] = basic(g, p, "branch_pool", b[3], 192, 1, 1, 1, 0, 0);
	return synth_op_cat(g, synth_name(g, "%s.cat", p), 4, b);
}

static int inception_d(struct synth_graph *g, const char *p, int x)
{
	int b[3];
	b[0] = basic(g, p, "branch3x3_1", x, 192, 1, 1, 1, 0, 0);
	b[0] = basic(g, p, "branch3x3_2", b[0], 320, 3, 3, 2, 0, 0);
	b[1] = basic(g, p, "branch7x7x3_1", x, 192, 1, 1, 1, 0, 0);
	b[1] = basic(g, p, "branch7x7x3_2", b[1], 192, 1, 7, 1, 0, 3);
	b[1] = basic(g, p, "branch7x7x3_3", b[1], 192, 7, 1, 1, 3, 0);
	b[1] = basic(g, p, "branch7x7x3_4", b[1], 192, 3, 3, 2, 0, 0);
	b[2] = synth_op_maxpool(g, synth_name(g, "%s.max_pool", p), x, 3, 2, 0);
	return synth_op_cat(g, synth_name(g, "%s.cat", p), 3, b);
}

static int inception_e(struct synth_graph *g, const char *p, int x)
{
	int b[4], two[2];
	b[0] = basic(g, p, "branch1x1", x, 320, 1, 1, 1, 0, 0);
	int t = basic(g, p, "branch3x3_1", x, 384, 1, 1, 1, 0, 0);
	two[0] = basic(g, p, "branch3x3_2a", t, 384, 1, 3, 1, 0, 1);
	two[1] = basic(g, p, "branch3x3_2b", t, 384, 3, 1, 1, 1, 0);
	b[1] = synth_op_cat(g, synth_name(g, "%s.branch3x3.cat", p), 2, two);
	t = basic(g, p, "branch3x3dbl_1", x, 448, 1, 1, 1, 0, 0);
	t = basic(g, p, "branch3x3dbl_2", t, 384, 3, 3, 1, 1, 1);
	two[0] = basic(g, p, "branch3x3dbl_3a", t, 384, 1, 3, 1, 0, 1);
	two[1] = basic(g, p, "branch3x3dbl_3b", t, 384, 3, 1, 1, 1, 0);
	b[2] = synth_op_cat(g, synth_name(g, "%s.branch3x3dbl.cat", p), 2, two);
	b[3] = synth_op_avgpool(g, synth_name(g, "%s.avg_pool", p), x, 3, 1, 1);
	b[3] = basic(g, p, "branch_pool", b[3], 192, 1, 1, 1, 0, 0);
	return synth_op_cat(g, synth_name(g, "%s.cat", p), 4, b);
}

static int inception_aux(struct synth_graph *g, int x)
{
	const char *p = "AuxLogits";
	x = synth_op_avgpool(g, "AuxLogits.avg_pool", x, 5, 3, 0);
	x = basic(g, p, "conv0", x, 128, 1, 1, 1, 0, 0);
	x = basic(g, p, "conv1", x, 768, 5, 5, 1, 0, 0);
	x = synth_op_adaptive_avgpool(g, "AuxLogits.adaptive_avg_pool", x, 1,
				      1);
	x = synth_op_flatten(g, "AuxLogits.flatten", x);
	return synth_op_linear(g, "AuxLogits.fc", x, 1000, 1);
}

int synth_zoo_inception_v3(struct synth_graph *g)
{
	int labels;
	int x = cnn_inputs(g, 299, &labels);
	x = basic(g, "Conv2d_1a_3x3", "", x, 32, 3, 3, 2, 0, 0);
	x = basic(g, "Conv2d_2a_3x3", "", x, 32, 3, 3, 1, 0, 0);
	x = basic(g, "Conv2d_2b_3x3", "", x, 64, 3, 3, 1, 1, 1);
	x = synth_op_maxpool(g, "maxpool1", x, 3, 2, 0);
	x = basic(g, "Conv2d_3b_1x1", "", x, 80, 1, 1, 1, 0, 0);
	x = basic(g, "Conv2d_4a_3x3", "", x, 192, 3, 3, 1, 0, 0);
	x = synth_op_maxpool(g, "maxpool2", x, 3, 2, 0);
	x = inception_a(g, "Mixed_5b", x, 32);
	x = inception_a(g, "Mixed_5c", x, 64);
	x = inception_a(g, "Mixed_5d", x, 64);
	x = inception_b(g, "Mixed_6a", x);
	x = inception_c(g, "Mixed_6b", x, 128);
	x = inception_c(g, "Mixed_6c", x, 160);
	x = inception_c(g, "Mixed_6d", x, 160);
	x = inception_c(g, "Mixed_6e", x, 192);
	int aux = inception_aux(g, x);
	x = inception_d(g, "Mixed_7a", x);
	x = inception_e(g, "Mixed_7b", x);
	x = inception_e(g, "Mixed_7c", x);
	x = synth_op_adaptive_avgpool(g, "avgpool", x, 1, 1);
	x = synth_op_dropout(g, "dropout", x);
	x = synth_op_flatten(g, "flatten", x);
	x = synth_op_linear(g, "fc", x, 1000, 1);
	/* the usual recipe: loss = CE(logits) + 0.4 * CE(aux_logits) */
	int l1 = synth_op_cross_entropy(g, "loss_main", x, labels);
	int l2 = synth_op_cross_entropy(g, "loss_aux", aux, labels);
	int loss = synth_op_add(g, "loss", l1, l2, 0);
	synth_set_loss(g, loss);
	return g->err;
}
