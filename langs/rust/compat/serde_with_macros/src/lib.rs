//! `#[serde_as]` for gaol's serde_with stand-in: rewrites every field
//! attribute `#[serde_as(as = "T")]` of the item into
//! `#[serde(with = "::serde_with::As::<T>")]`, as serde_with does, so that
//! `#[derive(Serialize)]` (which must come after `#[serde_as]`) serialises the
//! field through `T`.  Written on `proc_macro` alone: Debian 12 packages no
//! serde_with, and syn is not needed for this much.
use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

#[proc_macro_attribute]
pub fn serde_as(_args: TokenStream, item: TokenStream) -> TokenStream {
    rewrite(item)
}

fn rewrite(stream: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if let (TokenTree::Punct(p), Some(TokenTree::Group(g))) = (&tokens[i], tokens.get(i + 1)) {
            if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket {
                if let Some(attr) = serde_as_attr(g) {
                    out.push(tokens[i].clone());
                    out.push(TokenTree::Group(Group::new(Delimiter::Bracket, attr)));
                    i += 2;
                    continue;
                }
            }
        }
        match &tokens[i] {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), rewrite(g.stream()));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            t => out.push(t.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// `serde_as(as = "T")` → `serde(with = "::serde_with::As::<T>")`; None when
/// the attribute is something else.
fn serde_as_attr(attr: &Group) -> Option<TokenStream> {
    let inner: Vec<TokenTree> = attr.stream().into_iter().collect();
    match inner.first() {
        Some(TokenTree::Ident(id)) if id.to_string() == "serde_as" => {}
        _ => return None,
    }
    let args: Vec<TokenTree> = match inner.get(1) {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => g.stream().into_iter().collect(),
        _ => return Some(TokenStream::new()), // a bare #[serde_as] on a field: drop it
    };
    let mut ty = None;
    for w in args.windows(3) {
        if let (TokenTree::Ident(k), TokenTree::Punct(eq), TokenTree::Literal(lit)) = (&w[0], &w[1], &w[2]) {
            if k.to_string() == "as" && eq.as_char() == '=' {
                ty = Some(lit.to_string());
            }
        }
    }
    let ty = ty?;
    let ty = ty.trim_matches('"');
    let with = format!("::serde_with::As::<{}>", ty);
    let tokens: Vec<TokenTree> = vec![
        TokenTree::Ident(Ident::new("serde", Span::call_site())),
        TokenTree::Group(Group::new(
            Delimiter::Parenthesis,
            vec![
                TokenTree::Ident(Ident::new("with", Span::call_site())),
                TokenTree::Punct(Punct::new('=', Spacing::Alone)),
                TokenTree::Literal(Literal::string(&with)),
            ]
            .into_iter()
            .collect(),
        )),
    ];
    Some(tokens.into_iter().collect())
}
