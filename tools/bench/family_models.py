"""Model families beyond torchvision's image classifiers, for the wide benchmark suite.

Each is a plain nn.Module over one float32 tensor, written as the architectures are usually
written (no pretrained weights exist offline; the benchmark seeds them):

  UNet             the segmentation U-Net: double 3 x 3 convolutions with batch norms, max-pool
                   downsampling, transposed-convolution upsampling and skip concatenations.
  TransformerNet   fast neural style transfer: reflection padding, instance norms, strided
                   convolutions, residual blocks and nearest-neighbour upsampling.
  SpeechConv1d     a Wav2Letter-style acoustic model: 1-D convolutions over 80 mel channels.
  BertEncoder      BERT-base's encoder layers (d 768, 12 heads, GELU, post-norm) on embeddings.
  DcganGenerator   DCGAN's generator: 4 x 4 stride-2 transposed convolutions with batch norms
                   from a latent vector to a 64 x 64 image.
  SuperResolution  ESPCN (PyTorch's ONNX export tutorial): 3 convolutions, then one to 3 x 3 times
                   the channels and a pixel shuffle (DepthToSpace) to 3x the size.
  GptDecoder       GPT-2 small's blocks (d 768, 12 heads, GELU, pre-norm, causal self-attention)
                   on embeddings: a decoder's prompt pass.
  MlpMixer         MLP-Mixer-B/16's layout at 8 blocks: patches by a strided convolution, token-
                   mixing MLPs over the transposed patches, channel MLPs, layer norms.
  DilatedTcn       a temporal convolutional network: 3-tap 1-D convolutions dilated 1 to 128
                   with residuals over 2,000 steps.
  Conformer        speech Conformer blocks (d 256): half-step SiLU feed-forwards, self-attention,
                   a convolution module (pointwise, GLU, depthwise 31-tap, batch norm).
  Seq2SeqTransformer  nn.Transformer (3 + 3 layers, d 512): encoder, causal decoder, cross-attention.
  OpticalFlowRaft  torchvision's RAFT-small (correlation pyramid, grid_sample lookups, a
                   convolutional GRU) with 4 refinement steps, on a pair of images stacked as a batch.
"""
import torch
from torch import nn
from torch.nn import functional as F


class _DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, channels=3, classes=2, width=32, depth=4):
        super().__init__()
        widths = [width * 2**i for i in range(depth + 1)]
        self.down = nn.ModuleList([_DoubleConv(channels, widths[0])] +
                                  [_DoubleConv(widths[i], widths[i + 1]) for i in range(depth)])
        self.up = nn.ModuleList([nn.ConvTranspose2d(widths[i + 1], widths[i], 2, stride=2) for i in reversed(range(depth))])
        self.merge = nn.ModuleList([_DoubleConv(2 * widths[i], widths[i]) for i in reversed(range(depth))])
        self.head = nn.Conv2d(widths[0], classes, 1)

    def forward(self, x):
        skips = []
        for i, block in enumerate(self.down):
            x = block(x if i == 0 else F.max_pool2d(x, 2))
            skips.append(x)
        skips.pop()
        for up, merge in zip(self.up, self.merge):
            x = merge(torch.cat([skips.pop(), up(x)], dim=1))
        return self.head(x)


class _ConvLayer(nn.Sequential):
    def __init__(self, cin, cout, kernel, stride=1, upsample=None):
        layers = [nn.Upsample(scale_factor=upsample, mode="nearest")] if upsample else []
        layers += [nn.ReflectionPad2d(kernel // 2), nn.Conv2d(cin, cout, kernel, stride)]
        super().__init__(*layers)


class _Residual(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.body = nn.Sequential(_ConvLayer(channels, channels, 3), nn.InstanceNorm2d(channels, affine=True), nn.ReLU(),
                                  _ConvLayer(channels, channels, 3), nn.InstanceNorm2d(channels, affine=True))

    def forward(self, x):
        return x + self.body(x)


class TransformerNet(nn.Module):
    def __init__(self):
        super().__init__()

        def conv(cin, cout, kernel, stride=1, upsample=None):
            return [_ConvLayer(cin, cout, kernel, stride, upsample), nn.InstanceNorm2d(cout, affine=True), nn.ReLU()]

        self.net = nn.Sequential(*conv(3, 32, 9), *conv(32, 64, 3, 2), *conv(64, 128, 3, 2),
                                 *[_Residual(128) for _ in range(5)],
                                 *conv(128, 64, 3, upsample=2), *conv(64, 32, 3, upsample=2), _ConvLayer(32, 3, 9))

    def forward(self, x):
        return self.net(x)


class SpeechConv1d(nn.Module):
    def __init__(self, mels=80, classes=29):
        super().__init__()
        spec = [(mels, 250, 48, 2)] + [(250, 250, 7, 1)] * 7 + [(250, 2000, 32, 1), (2000, 2000, 1, 1)]
        layers = []
        for cin, cout, kernel, stride in spec:
            layers += [nn.Conv1d(cin, cout, kernel, stride, padding=kernel // 2), nn.ReLU()]
        self.net = nn.Sequential(*layers, nn.Conv1d(2000, classes, 1))

    def forward(self, x):
        return F.log_softmax(self.net(x), dim=1)


class BertEncoder(nn.Module):
    def __init__(self, dim=768, heads=12, layers=4):
        super().__init__()
        # Layers made one by one: nn.TransformerEncoder's copies of one layer share its values,
        # which the ONNX export stores once.
        self.layers = nn.ModuleList([
            nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, activation="gelu", batch_first=True)
            for _ in range(layers)
        ])
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        x = self.norm(x)
        for layer in self.layers:
            x = layer(x)
        return x


class GptDecoder(nn.Module):
    def __init__(self, dim=768, heads=12, layers=4, context=128):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, activation="gelu", batch_first=True,
                                       norm_first=True) for _ in range(layers)
        ])
        self.norm = nn.LayerNorm(dim)
        # A constant mask (the export is at one length): -inf above the diagonal.
        self.register_buffer("causal", torch.triu(torch.full((context, context), float("-inf")), diagonal=1))

    def forward(self, x):
        mask = self.causal[:x.shape[1], :x.shape[1]]
        for layer in self.layers:
            x = layer(x, src_mask=mask)
        return self.norm(x)


class DcganGenerator(nn.Module):
    def __init__(self, latent=100, width=64):
        super().__init__()
        w = [width * 8, width * 4, width * 2, width]
        layers = [nn.ConvTranspose2d(latent, w[0], 4, 1, 0, bias=False), nn.BatchNorm2d(w[0]), nn.ReLU(True)]
        for cin, cout in zip(w, w[1:]):
            layers += [nn.ConvTranspose2d(cin, cout, 4, 2, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(True)]
        layers += [nn.ConvTranspose2d(w[-1], 3, 4, 2, 1, bias=False), nn.Tanh()]
        self.net = nn.Sequential(*layers)

    def forward(self, z):
        return self.net(z)


class SuperResolution(nn.Module):
    def __init__(self, upscale=3):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 64, 5, padding=2), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(64, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, upscale**2, 3, padding=1),
                                 nn.PixelShuffle(upscale))

    def forward(self, x):
        return self.net(x)


class _MixerBlock(nn.Module):
    def __init__(self, tokens, dim, token_hidden, channel_hidden):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.tokens = nn.Sequential(nn.Linear(tokens, token_hidden), nn.GELU(), nn.Linear(token_hidden, tokens))
        self.channels = nn.Sequential(nn.Linear(dim, channel_hidden), nn.GELU(), nn.Linear(channel_hidden, dim))

    def forward(self, x):
        x = x + self.tokens(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channels(self.norm2(x))


class MlpMixer(nn.Module):
    def __init__(self, dim=512, blocks=8, patch=16, image=224, classes=1000):
        super().__init__()
        tokens = (image // patch)**2
        self.stem = nn.Conv2d(3, dim, patch, patch)
        self.blocks = nn.Sequential(*[_MixerBlock(tokens, dim, 256, 4 * dim) for _ in range(blocks)])
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        return self.head(self.norm(self.blocks(x)).mean(1))


class DilatedTcn(nn.Module):
    def __init__(self, features=40, channels=128, layers=8, classes=10):
        super().__init__()
        self.inp = nn.Conv1d(features, channels, 1)
        self.convs = nn.ModuleList([nn.Conv1d(channels, channels, 3, dilation=2**i, padding=2**i) for i in range(layers)])
        self.out = nn.Conv1d(channels, classes, 1)

    def forward(self, x):
        x = self.inp(x)
        for conv in self.convs:
            x = x + torch.relu(conv(x))
        return self.out(x)


class _ConformerBlock(nn.Module):
    def __init__(self, dim=256, heads=4, kernel=31):
        super().__init__()
        def feed_forward():
            return nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.SiLU(), nn.Linear(4 * dim, dim))
        self.ff1, self.ff2 = feed_forward(), feed_forward()
        self.attn_norm, self.attn = nn.LayerNorm(dim), nn.MultiheadAttention(dim, heads, batch_first=True)
        self.conv_norm = nn.LayerNorm(dim)
        self.pointwise1 = nn.Conv1d(dim, 2 * dim, 1)
        self.depthwise = nn.Conv1d(dim, dim, kernel, padding=kernel // 2, groups=dim)
        self.bn, self.pointwise2 = nn.BatchNorm1d(dim), nn.Conv1d(dim, dim, 1)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        x = x + 0.5 * self.ff1(x)
        h = self.attn_norm(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        h = F.glu(self.pointwise1(self.conv_norm(x).transpose(1, 2)), dim=1)
        x = x + self.pointwise2(F.silu(self.bn(self.depthwise(h)))).transpose(1, 2)
        return self.norm(x + 0.5 * self.ff2(x))


class Conformer(nn.Module):
    def __init__(self, blocks=4):
        super().__init__()
        self.blocks = nn.Sequential(*[_ConformerBlock() for _ in range(blocks)])

    def forward(self, x):
        return self.blocks(x)


class Seq2SeqTransformer(nn.Module):
    """Source (1, 64, 512); the target is its first 32 steps, under a causal mask."""

    def __init__(self, target=32):
        super().__init__()
        self.target = target
        self.transformer = nn.Transformer(d_model=512, nhead=8, num_encoder_layers=3, num_decoder_layers=3,
                                          dim_feedforward=2048, dropout=0.0, batch_first=True)
        self.register_buffer("causal", torch.triu(torch.full((target, target), float("-inf")), diagonal=1))

    def forward(self, x):
        return self.transformer(x, x[:, :self.target], tgt_mask=self.causal)


class OpticalFlowRaft(nn.Module):
    """Input (2, 3, H, W): the two frames; the result the last flow estimate."""

    def __init__(self, updates=4):
        super().__init__()
        import torchvision
        self.updates = updates
        self.raft = torchvision.models.optical_flow.raft_small(weights=None)

    def forward(self, x):
        return self.raft(x[:1], x[1:], num_flow_updates=self.updates)[-1]
