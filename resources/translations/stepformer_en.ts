<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>CellTip</name>
    <message numerus="yes">
        <source> + … (%n terms)</source>
        <translation>
            <numerusform> + … (%n term)</numerusform>
            <numerusform> + … (%n terms)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ComputeDevices</name>
    <message numerus="yes">
        <source>%n threads</source>
        <translation>
            <numerusform>%n thread</numerusform>
            <numerusform>%n threads</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DecodeStepPage</name>
    <message numerus="yes">
        <source>&lt;b&gt;Masked self-attention&lt;/b&gt; (&lt;tt&gt;%1&lt;/tt&gt;): each decoder token looks at itself and the tokens before it. %n query rows now; the new one is &lt;b&gt;“%2”&lt;/b&gt;.</source>
        <translation>
            <numerusform>&lt;b&gt;Masked self-attention&lt;/b&gt; (&lt;tt&gt;%1&lt;/tt&gt;): each decoder token looks at itself and the tokens before it. %n query row now; the new one is &lt;b&gt;“%2”&lt;/b&gt;.</numerusform>
            <numerusform>&lt;b&gt;Masked self-attention&lt;/b&gt; (&lt;tt&gt;%1&lt;/tt&gt;): each decoder token looks at itself and the tokens before it. %n query rows now; the new one is &lt;b&gt;“%2”&lt;/b&gt;.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Causal self-attention&lt;/b&gt; (&lt;tt&gt;%1&lt;/tt&gt;): each token looks at itself and the tokens before it. %n query rows now; the new row &lt;b&gt;“%2”&lt;/b&gt; decides the next word.</source>
        <translation>
            <numerusform>&lt;b&gt;Causal self-attention&lt;/b&gt; (&lt;tt&gt;%1&lt;/tt&gt;): each token looks at itself and the tokens before it. %n query row now; the new row &lt;b&gt;“%2”&lt;/b&gt; decides the next word.</numerusform>
            <numerusform>&lt;b&gt;Causal self-attention&lt;/b&gt; (&lt;tt&gt;%1&lt;/tt&gt;): each token looks at itself and the tokens before it. %n query rows now; the new row &lt;b&gt;“%2”&lt;/b&gt; decides the next word.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>next token: %n words, hover a bar for its word</source>
        <translation>
            <numerusform>next token: %n word, hover a bar for its word</numerusform>
            <numerusform>next token: %n words, hover a bar for its word</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>InputBar</name>
    <message numerus="yes">
        <source>unknown source words %1 (the source vocabulary is: %2)</source>
        <translation>
            <numerusform>unknown source word %1 (the source vocabulary is: %2)</numerusform>
            <numerusform>unknown source words %1 (the source vocabulary is: %2)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>unknown target words %1 (the target vocabulary is: %2)</source>
        <translation>
            <numerusform>unknown target word %1 (the target vocabulary is: %2)</numerusform>
            <numerusform>unknown target words %1 (the target vocabulary is: %2)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the source has %n words, at most %1 fit (src_len)</source>
        <translation>
            <numerusform>the source has %n word, at most %1 fit (src_len)</numerusform>
            <numerusform>the source has %n words, at most %1 fit (src_len)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the target has %n words, at most %1 fit (tgt_len)</source>
        <translation>
            <numerusform>the target has %n word, at most %1 fit (tgt_len)</numerusform>
            <numerusform>the target has %n words, at most %1 fit (tgt_len)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>unknown words %1 (the vocabulary is: %2)</source>
        <translation>
            <numerusform>unknown word %1 (the vocabulary is: %2)</numerusform>
            <numerusform>unknown words %1 (the vocabulary is: %2)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the text has %n words, at most %1 fit (block_size)</source>
        <translation>
            <numerusform>the text has %n word, at most %1 fit (block_size)</numerusform>
            <numerusform>the text has %n words, at most %1 fit (block_size)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ParameterPane</name>
    <message numerus="yes">
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;⚠ This weight holds %n NaN or infinite value(s), shown magenta; the first is at %1. Everything computed from it is NaN.&lt;/span&gt;&lt;br&gt;</source>
        <translation>
            <numerusform>&lt;span style=&apos;color:#c62828&apos;&gt;⚠ This weight holds %n NaN or infinite value, shown magenta; it is at %1. Everything computed from it is NaN.&lt;/span&gt;&lt;br&gt;</numerusform>
            <numerusform>&lt;span style=&apos;color:#c62828&apos;&gt;⚠ This weight holds %n NaN or infinite values, shown magenta; the first is at %1. Everything computed from it is NaN.&lt;/span&gt;&lt;br&gt;</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Session</name>
    <message numerus="yes">
        <source>, and %n more parameter(s)</source>
        <translation>
            <numerusform>, and %n more parameter</numerusform>
            <numerusform>, and %n more parameters</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>StepPanels</name>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt; = w_%2s(%2).view(sz_b, len, n_head, d_%3).transpose(1, 2): nn.Linear(d_model, n_head·d_%3, bias=False), cut into n_head = %n heads of d_%3 = %4 columns; shown: head %5.</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; = w_%2s(%2).view(sz_b, len, n_head, d_%3).transpose(1, 2): nn.Linear(d_model, n_head·d_%3, bias=False), cut into n_head = %n head of d_%3 = %4 columns; shown: head %5.</numerusform>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; = w_%2s(%2).view(sz_b, len, n_head, d_%3).transpose(1, 2): nn.Linear(d_model, n_head·d_%3, bias=False), cut into n_head = %n heads of d_%3 = %4 columns; shown: head %5.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt; = x · W&lt;sub&gt;%2&lt;/sub&gt;ᵀ + b&lt;sub&gt;%2&lt;/sub&gt;: nn.MultiheadAttention keeps W&lt;sub&gt;q&lt;/sub&gt;, W&lt;sub&gt;k&lt;/sub&gt;, W&lt;sub&gt;v&lt;/sub&gt; packed in one &lt;tt&gt;in_proj_weight&lt;/tt&gt; [3·d_model, d_model]; the %2 part is rows %3 (and &lt;tt&gt;in_proj_bias[%3]&lt;/tt&gt;). The result is cut into nhead = %n heads of head_dim = d_model / nhead = %4 columns; shown: head %5.</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; = x · W&lt;sub&gt;%2&lt;/sub&gt;ᵀ + b&lt;sub&gt;%2&lt;/sub&gt;: nn.MultiheadAttention keeps W&lt;sub&gt;q&lt;/sub&gt;, W&lt;sub&gt;k&lt;/sub&gt;, W&lt;sub&gt;v&lt;/sub&gt; packed in one &lt;tt&gt;in_proj_weight&lt;/tt&gt; [3·d_model, d_model]; the %2 part is rows %3 (and &lt;tt&gt;in_proj_bias[%3]&lt;/tt&gt;). The result is cut into nhead = %n head of head_dim = d_model / nhead = %4 columns; shown: head %5.</numerusform>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; = x · W&lt;sub&gt;%2&lt;/sub&gt;ᵀ + b&lt;sub&gt;%2&lt;/sub&gt;: nn.MultiheadAttention keeps W&lt;sub&gt;q&lt;/sub&gt;, W&lt;sub&gt;k&lt;/sub&gt;, W&lt;sub&gt;v&lt;/sub&gt; packed in one &lt;tt&gt;in_proj_weight&lt;/tt&gt; [3·d_model, d_model]; the %2 part is rows %3 (and &lt;tt&gt;in_proj_bias[%3]&lt;/tt&gt;). The result is cut into nhead = %n heads of head_dim = d_model / nhead = %4 columns; shown: head %5.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt; = W_%1(input).view(batch, −1, n_heads, d_%2).transpose(1, 2): the input times W_%1ᵀ, cut into %n heads of %3 columns; shown: head %4.</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; = W_%1(input).view(batch, −1, n_heads, d_%2).transpose(1, 2): the input times W_%1ᵀ, cut into %n head of %3 columns; shown: head %4.</numerusform>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; = W_%1(input).view(batch, −1, n_heads, d_%2).transpose(1, 2): the input times W_%1ᵀ, cut into %n heads of %3 columns; shown: head %4.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;q, k, v = self.c_attn(x).split(n_embd, dim=2)&lt;/b&gt;: c_attn = nn.Linear(n_embd, 3·n_embd%1) packs the three projections, its weight [%2, %3] rows q | k | v; %4 is rows %5. Then .view(B, T, n_head, C // n_head).transpose(1, 2) cuts it into n_head = %n heads of hs = %6 columns; shown: head %7.</source>
        <translation>
            <numerusform>&lt;b&gt;q, k, v = self.c_attn(x).split(n_embd, dim=2)&lt;/b&gt;: c_attn = nn.Linear(n_embd, 3·n_embd%1) packs the three projections, its weight [%2, %3] rows q | k | v; %4 is rows %5. Then .view(B, T, n_head, C // n_head).transpose(1, 2) cuts it into n_head = %n head of hs = %6 columns; shown: head %7.</numerusform>
            <numerusform>&lt;b&gt;q, k, v = self.c_attn(x).split(n_embd, dim=2)&lt;/b&gt;: c_attn = nn.Linear(n_embd, 3·n_embd%1) packs the three projections, its weight [%2, %3] rows q | k | v; %4 is rows %5. Then .view(B, T, n_head, C // n_head).transpose(1, 2) cuts it into n_head = %n heads of hs = %6 columns; shown: head %7.</numerusform>
        </translation>
    </message>
</context>
</TS>
