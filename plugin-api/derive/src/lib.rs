//! The derive macros of the datahost plugin SDK: `#[derive(Params)]` turns a struct into a route's query
//! parameters (parsed with SPEC's rules and documented from the same declaration), `#[derive(ApiSchema)]` turns
//! a response type into its OpenAPI schema (doc comments become descriptions, serde's renames are followed).
//! Plugins use them through `datahost_plugin_api`, which holds the traits and their documentation; the
//! generated code names only `::datahost_plugin_api` paths.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::{parse_macro_input, Attribute, Data, DeriveInput, Expr, Fields, Lit, LitStr};

/// Derives `datahost_plugin_api::params::Params`; see that trait for the field attributes.
#[proc_macro_derive(Params, attributes(param))]
pub fn derive_params(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    params(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Derives `datahost_plugin_api::openapi::ApiSchema`; see that trait for the attributes.
#[proc_macro_derive(ApiSchema, attributes(schema))]
pub fn derive_api_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    api_schema(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// The doc comment of an item as one description: lines of a paragraph joined by spaces, paragraphs by a blank
/// line (rustdoc wraps at the source's line width, which means nothing in a description).
fn doc_text(attrs: &[Attribute]) -> String {
    let mut paragraphs: Vec<String> = vec![String::new()];
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        let syn::Meta::NameValue(nv) = &attr.meta else { continue };
        let Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) = &nv.value else { continue };
        let line = s.value();
        let line = line.trim();
        let current = paragraphs.last_mut().expect("one paragraph");
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(String::new());
            }
        } else {
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(line);
        }
    }
    paragraphs.retain(|p| !p.is_empty());
    paragraphs.join("\n\n")
}

// ---- Params ------------------------------------------------------------------------------------------------

#[derive(Default)]
struct ParamAttrs {
    name: Option<String>,
    example: Option<Lit>,
    max_chars: Option<Expr>,
    limit: Option<(Expr, Expr, String)>,
    /// `page(default, max, of)`: the `limit` and `cursor` parameters of a list, read into a `PageRequest`.
    page: Option<(Expr, Expr, String)>,
    /// `page_or_all(max, of, whole)`: `limit` and `cursor` of a list served whole without `limit`.
    page_or_all: Option<(Expr, String, String)>,
}

/// The arguments of `limit(..)`, `page(..)` and `page_or_all(..)`; each attribute checks which it needs.
#[derive(Default)]
struct ListArgs {
    default: Option<Expr>,
    max: Option<Expr>,
    of: Option<String>,
    whole: Option<String>,
}

fn list_args(meta: &syn::meta::ParseNestedMeta) -> syn::Result<ListArgs> {
    let mut args = ListArgs::default();
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("default") {
            args.default = Some(inner.value()?.parse::<Expr>()?);
        } else if inner.path.is_ident("max") {
            args.max = Some(inner.value()?.parse::<Expr>()?);
        } else if inner.path.is_ident("of") {
            args.of = Some(inner.value()?.parse::<LitStr>()?.value());
        } else if inner.path.is_ident("whole") {
            args.whole = Some(inner.value()?.parse::<LitStr>()?.value());
        } else {
            return Err(inner.error("expected `default`, `max`, `of` or `whole`"));
        }
        Ok(())
    })?;
    Ok(args)
}

fn param_attrs(attrs: &[Attribute]) -> syn::Result<ParamAttrs> {
    let mut out = ParamAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("param")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                out.name = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("example") {
                out.example = Some(meta.value()?.parse::<Lit>()?);
            } else if meta.path.is_ident("max_chars") {
                out.max_chars = Some(meta.value()?.parse::<Expr>()?);
            } else if meta.path.is_ident("limit") || meta.path.is_ident("page") || meta.path.is_ident("page_or_all") {
                let which = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
                let args = list_args(&meta)?;
                match (which.as_str(), args) {
                    ("page_or_all", ListArgs { default: None, max: Some(m), of: Some(o), whole: Some(w) }) => {
                        out.page_or_all = Some((m, o, w))
                    }
                    ("page", ListArgs { default: Some(d), max: Some(m), of: Some(o), whole: None }) => {
                        out.page = Some((d, m, o))
                    }
                    ("limit", ListArgs { default: Some(d), max: Some(m), of: Some(o), whole: None }) => {
                        out.limit = Some((d, m, o))
                    }
                    ("page_or_all", _) => {
                        return Err(meta.error("`page_or_all` takes `max = N, of = \"what\", whole = \"..\"`"))
                    }
                    _ => return Err(meta.error(format!("`{which}` takes `default = N, max = N, of = \"what\"`"))),
                }
            } else {
                return Err(
                    meta.error("expected `name`, `example`, `max_chars`, `limit(..)`, `page(..)` or `page_or_all(..)`")
                );
            }
            Ok(())
        })?;
    }
    Ok(out)
}

fn params(input: &DeriveInput) -> syn::Result<Tokens> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(&input.ident, "`Params` derives only on a struct with named fields"));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(&input.ident, "`Params` derives only on a struct with named fields"));
    };
    let api = quote!(::datahost_plugin_api);
    let (mut specs, mut reads, mut idents) = (Vec::new(), Vec::new(), Vec::new());
    // The parameters read so far (name, field) whose canonical spelling a later `page` field binds its cursor to.
    let mut earlier: Vec<(String, syn::Ident)> = Vec::new();
    for field in &fields.named {
        let ident = field.ident.as_ref().expect("named field");
        let attrs = param_attrs(&field.attrs)?;
        let name = attrs.name.clone().unwrap_or_else(|| ident.to_string().trim_start_matches("r#").to_string());
        let ty = &field.ty;
        // A local per field, named apart from `query` (a field may be called that) and from each other.
        let local = quote::format_ident!("__param_{}", ident.to_string().trim_start_matches("r#"));
        idents.push((ident.clone(), local.clone()));
        if let Some((default, max, of)) = &attrs.limit {
            if name != "limit" || attrs.example.is_some() || attrs.max_chars.is_some() {
                return Err(syn::Error::new_spanned(ident, "`limit(..)` is the `limit` parameter alone"));
            }
            specs.push(quote!(#api::ParamSpec::limit(#default, #max, #of)));
            reads.push(quote!(let #local = query.limit(#default, #max)?;));
            continue;
        }
        if let Some((max, of, whole)) = &attrs.page_or_all {
            if attrs.example.is_some() || attrs.max_chars.is_some() || attrs.name.is_some() {
                return Err(syn::Error::new_spanned(
                    ident,
                    "`page_or_all(..)` is the `limit` and `cursor` parameters alone",
                ));
            }
            specs.push(quote!(#api::paging::limit_or_all_param(#of, #whole, #max)));
            specs.push(quote!(#api::paging::cursor_param()));
            reads.push(quote!(let #local = #api::params::__page_or_all(&query, #max)?;));
            continue;
        }
        if let Some((default, max, of)) = &attrs.page {
            if attrs.example.is_some() || attrs.max_chars.is_some() || attrs.name.is_some() {
                return Err(syn::Error::new_spanned(ident, "`page(..)` is the `limit` and `cursor` parameters alone"));
            }
            specs.push(quote!(#api::ParamSpec::limit(#default, #max, #of)));
            specs.push(quote!(#api::paging::cursor_param()));
            let bound =
                earlier.iter().map(|(name, field)| quote!((#name, #api::params::ParamValue::canonical(&#field))));
            reads.push(quote!(let #local = #api::params::__page(&query, #default, #max, &[#(#bound),*])?;));
            continue;
        }
        let description = doc_text(&field.attrs);
        if description.is_empty() {
            return Err(syn::Error::new_spanned(ident, "document the parameter: its doc comment is its description"));
        }
        let max_chars = match &attrs.max_chars {
            Some(n) => quote!(::core::option::Option::Some(#n)),
            None => quote!(::core::option::Option::None),
        };
        let example = match &attrs.example {
            Some(lit) => quote!(::core::option::Option::Some(#api::serde_json::json!(#lit))),
            None => quote!(::core::option::Option::None),
        };
        specs.push(quote!(#api::params::__spec::<#ty>(#name, #description, #max_chars, #example)));
        reads.push(quote!(let #local = <#ty as #api::params::ParamValue>::read(&query, #name, #max_chars)?;));
        earlier.push((name, local.clone()));
    }
    let (fields, locals): (Vec<_>, Vec<_>) = idents.into_iter().unzip();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics #api::params::Params for #ident #ty_generics #where_clause {
            fn specs() -> ::std::vec::Vec<#api::ParamSpec> {
                ::std::vec![#(#specs),*]
            }
            fn parse(query: #api::Query<'_>) -> ::core::result::Result<Self, #api::ApiError> {
                #(#reads)*
                ::core::result::Result::Ok(Self { #(#fields: #locals),* })
            }
        }
    })
}

// ---- ApiSchema ---------------------------------------------------------------------------------------------

/// serde's `rename_all` rules, applied to a field (written snake_case) or a variant (written PascalCase) the way
/// serde applies them (`serde_derive`'s `RenameRule`): a field in `lowercase` keeps its underscores, a variant in
/// `snake_case` gets one before each capital.
fn rename(rule: &str, name: &str, is_variant: bool) -> Result<String, String> {
    let snake_variant = || {
        let mut out = String::new();
        for (i, c) in name.char_indices() {
            if i > 0 && c.is_uppercase() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    };
    let pascal_field = || {
        let mut out = String::new();
        let mut capital = true;
        for c in name.chars() {
            if c == '_' {
                capital = true;
            } else if capital {
                out.push(c.to_ascii_uppercase());
                capital = false;
            } else {
                out.push(c);
            }
        }
        out
    };
    let lower_first = |s: String| match s.chars().next() {
        Some(first) => first.to_ascii_lowercase().to_string() + &s[first.len_utf8()..],
        None => s,
    };
    Ok(match (rule, is_variant) {
        ("lowercase", true) => name.to_ascii_lowercase(),
        ("UPPERCASE", true) => name.to_ascii_uppercase(),
        ("PascalCase", true) => name.to_string(),
        ("camelCase", true) => lower_first(name.to_string()),
        ("snake_case", true) => snake_variant(),
        ("SCREAMING_SNAKE_CASE", true) => snake_variant().to_ascii_uppercase(),
        ("kebab-case", true) => snake_variant().replace('_', "-"),
        ("SCREAMING-KEBAB-CASE", true) => snake_variant().to_ascii_uppercase().replace('_', "-"),
        ("lowercase" | "snake_case", false) => name.to_string(),
        ("UPPERCASE" | "SCREAMING_SNAKE_CASE", false) => name.to_ascii_uppercase(),
        ("PascalCase", false) => pascal_field(),
        ("camelCase", false) => lower_first(pascal_field()),
        ("kebab-case", false) => name.replace('_', "-"),
        ("SCREAMING-KEBAB-CASE", false) => name.to_ascii_uppercase().replace('_', "-"),
        (other, _) => return Err(format!("unknown serde rename_all rule `{other}`")),
    })
}

#[derive(Default)]
struct SerdeAttrs {
    rename: Option<String>,
    rename_all: Option<String>,
    skip: bool,
    optional: bool,
    /// `skip_serializing_if = "Option::is_none"`: the field is left out rather than written as null.
    none_left_out: bool,
    flatten: bool,
    /// `tag`, `content` or `untagged`: an enum written as objects or bare values, which the schema cannot follow.
    tagged: bool,
}

/// What serde's attributes say about a container, field or variant (only what changes the JSON's shape; any
/// other serde attribute is left to serde).
fn serde_attrs(attrs: &[Attribute]) -> syn::Result<SerdeAttrs> {
    let mut out = SerdeAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            let path = &meta.path;
            if path.is_ident("rename") {
                out.rename = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if path.is_ident("rename_all") {
                out.rename_all = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if path.is_ident("skip") || path.is_ident("skip_serializing") {
                out.skip = true;
            } else if path.is_ident("skip_serializing_if") {
                out.optional = true;
                let test = meta.value()?.parse::<LitStr>()?.value();
                out.none_left_out = test.replace(' ', "") == "Option::is_none";
            } else if path.is_ident("flatten") {
                out.flatten = true;
            } else if path.is_ident("untagged") {
                out.tagged = true;
            } else if path.is_ident("tag") || path.is_ident("content") {
                out.tagged = true;
                meta.value()?.parse::<LitStr>()?;
            } else if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<Expr>()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|inner| {
                    if inner.input.peek(syn::Token![=]) {
                        inner.value()?.parse::<Expr>()?;
                    }
                    Ok(())
                })?;
            }
            Ok(())
        })?;
    }
    Ok(out)
}

#[derive(Default)]
struct SchemaAttrs {
    name: Option<String>,
    format: Option<String>,
    pattern: Option<String>,
    max_items: Option<Expr>,
    example: Option<Lit>,
    with: Option<syn::Path>,
    /// Documented as not required although serde always writes it (an addition beyond a published contract).
    optional: bool,
    /// A `&str` expression (a shared constant) describing the field instead of its doc comment.
    description: Option<Expr>,
    /// Documented as required although serde may leave it out (a field present on every public answer).
    required: bool,
    /// The field's type documented in place (its object schema) instead of as a `$ref` to its component.
    inline: bool,
    /// On a struct: a `fn() -> Value` whose array becomes the object schema's `allOf` (conditions across fields,
    /// such as `if` one field has a value `then` others are required, that no single field can state).
    all_of: Option<syn::Path>,
}

fn schema_attrs(attrs: &[Attribute]) -> syn::Result<SchemaAttrs> {
    let mut out = SchemaAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("schema")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                out.name = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("format") {
                out.format = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("pattern") {
                out.pattern = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("max_items") {
                out.max_items = Some(meta.value()?.parse::<Expr>()?);
            } else if meta.path.is_ident("example") {
                out.example = Some(meta.value()?.parse::<Lit>()?);
            } else if meta.path.is_ident("with") {
                out.with = Some(meta.value()?.parse::<syn::Path>()?);
            } else if meta.path.is_ident("optional") {
                out.optional = true;
            } else if meta.path.is_ident("required") {
                out.required = true;
            } else if meta.path.is_ident("inline") {
                out.inline = true;
            } else if meta.path.is_ident("description") {
                out.description = Some(meta.value()?.parse::<Expr>()?);
            } else if meta.path.is_ident("all_of") {
                out.all_of = Some(meta.value()?.parse::<syn::Path>()?);
            } else {
                return Err(meta.error(
                    "expected `name`, `format`, `pattern`, `max_items`, `example`, `with`, `optional`, `required`, \
                     `inline`, `description` or `all_of`",
                ));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// `T` of a field typed `Option<T>` (also spelled `std::option::Option<T>`).
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first()? {
        syn::GenericArgument::Type(inner) if args.args.len() == 1 => Some(inner),
        _ => None,
    }
}

fn api_schema(input: &DeriveInput) -> syn::Result<Tokens> {
    let api = quote!(::datahost_plugin_api);
    let container = serde_attrs(&input.attrs)?;
    let own = schema_attrs(&input.attrs)?;
    let component = own.name.unwrap_or_else(|| input.ident.to_string());
    if let (Some(path), Data::Enum(_)) = (&own.all_of, &input.data) {
        return Err(syn::Error::new_spanned(path, "`all_of` constrains a struct's object schema, not an enum"));
    }
    // Added to the object schema itself, so the component, an `inline` field and a flattening struct all get it.
    let all_of =
        own.all_of.as_ref().map(|path| quote!(let object = #api::openapi::schema::with(object, "allOf", #path());));
    let description = doc_text(&input.attrs);
    if description.is_empty() {
        return Err(syn::Error::new_spanned(&input.ident, "document the type: its doc comment is its description"));
    }
    let rule = container.rename_all.as_deref();
    let body = match &input.data {
        Data::Struct(data) => {
            let Fields::Named(fields) = &data.fields else {
                return Err(syn::Error::new_spanned(&input.ident, "`ApiSchema` derives on structs with named fields"));
            };
            let (mut required, mut optional, mut nested, mut flattened) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for field in &fields.named {
                let ident = field.ident.as_ref().expect("named field");
                let serde = serde_attrs(&field.attrs)?;
                if serde.skip {
                    continue;
                }
                if serde.flatten {
                    // serde writes nothing for a `None`, so an `Option` group may be absent as a whole.
                    let group_optional = serde.optional || option_inner(&field.ty).is_some();
                    let ty = &field.ty;
                    let name = ident.to_string();
                    flattened.push(quote!(
                        let object = #api::openapi::__flatten(
                            object, <#ty as #api::openapi::ApiSchema>::flattened(), #group_optional, #name,
                        );
                    ));
                    nested.push(quote!(<#ty as #api::openapi::ApiSchema>::flattened_components(out);));
                    continue;
                }
                let plain = ident.to_string().trim_start_matches("r#").to_string();
                let key = match (serde.rename, rule) {
                    (Some(name), _) => name,
                    (None, Some(rule)) => rename(rule, &plain, false).map_err(|e| syn::Error::new_spanned(ident, e))?,
                    (None, None) => plain,
                };
                let attrs = schema_attrs(&field.attrs)?;
                if let Some(path) = &attrs.all_of {
                    return Err(syn::Error::new_spanned(path, "`all_of` goes on the struct, not on a field"));
                }
                // An `Option` that serde leaves out when it is `None` is never written as null: it is an optional
                // field of the inner type.
                let ty = match (serde.none_left_out, option_inner(&field.ty)) {
                    (true, Some(inner)) => inner,
                    _ => &field.ty,
                };
                if attrs.optional && attrs.required {
                    return Err(syn::Error::new_spanned(ident, "a field is `optional` or `required`, not both"));
                }
                let name = ident.to_string();
                let mut schema = match (&attrs.with, attrs.inline) {
                    (Some(_), true) => {
                        return Err(syn::Error::new_spanned(
                            ident,
                            "`with` gives the whole schema: no `inline` beside it",
                        ))
                    }
                    (Some(path), false) => quote!(#path()),
                    (None, true) => {
                        nested.push(quote!(<#ty as #api::openapi::ApiSchema>::flattened_components(out);));
                        quote!(#api::openapi::__inline(<#ty as #api::openapi::ApiSchema>::inline(), #name))
                    }
                    (None, false) => {
                        nested.push(quote!(<#ty as #api::openapi::ApiSchema>::components(out);));
                        quote!(<#ty as #api::openapi::ApiSchema>::schema())
                    }
                };
                if let Some(format) = &attrs.format {
                    schema = quote!(#api::openapi::schema::with(#schema, "format", #api::serde_json::json!(#format)));
                }
                if let Some(pattern) = &attrs.pattern {
                    schema = quote!(#api::openapi::schema::with(#schema, "pattern", #api::serde_json::json!(#pattern)));
                }
                if let Some(n) = &attrs.max_items {
                    schema = quote!(#api::openapi::schema::with(#schema, "maxItems", #api::serde_json::json!(#n)));
                }
                if let Some(example) = &attrs.example {
                    schema =
                        quote!(#api::openapi::schema::with(#schema, "examples", #api::serde_json::json!([#example])));
                }
                let text = doc_text(&field.attrs);
                match (&attrs.description, text.is_empty()) {
                    (Some(_), false) => {
                        return Err(syn::Error::new_spanned(
                            ident,
                            "a field has one description: its doc comment or `description = ..`, not both",
                        ))
                    }
                    (Some(expr), true) => schema = quote!(#api::openapi::schema::describe(#schema, #expr)),
                    (None, false) => schema = quote!(#api::openapi::schema::describe(#schema, #text)),
                    (None, true) => {}
                }
                let entry = quote!((#key, #schema));
                if (serde.optional || attrs.optional) && !attrs.required {
                    optional.push(entry);
                } else {
                    required.push(entry);
                }
            }
            quote! {
                fn components(out: &mut #api::serde_json::Map<::std::string::String, #api::serde_json::Value>) {
                    // Once per component; inserted before its fields are visited, so a type that contains itself
                    // ends.
                    if out.contains_key(#component) {
                        return;
                    }
                    out.insert(#component.into(), #api::serde_json::Value::Null);
                    let object = <Self as #api::openapi::ApiSchema>::flattened().expect("a struct's object schema");
                    out.insert(#component.into(), #api::openapi::schema::describe(object, #description));
                    <Self as #api::openapi::ApiSchema>::flattened_components(out);
                }
                fn flattened() -> ::core::option::Option<#api::serde_json::Value> {
                    let object = #api::openapi::schema::object_with_optional(&[#(#required),*], &[#(#optional),*]);
                    #all_of
                    #(#flattened)*
                    ::core::option::Option::Some(object)
                }
                fn flattened_components(out: &mut #api::serde_json::Map<::std::string::String, #api::serde_json::Value>) {
                    #(#nested)*
                }
            }
        }
        Data::Enum(data) => {
            if container.tagged {
                return Err(syn::Error::new_spanned(
                    &input.ident,
                    "`ApiSchema` describes externally tagged enums only",
                ));
            }
            let mut values = Vec::new();
            for variant in &data.variants {
                if !matches!(variant.fields, Fields::Unit) {
                    return Err(syn::Error::new_spanned(
                        &variant.ident,
                        "`ApiSchema` derives on enums of unit variants",
                    ));
                }
                let serde = serde_attrs(&variant.attrs)?;
                if serde.skip {
                    continue;
                }
                let plain = variant.ident.to_string();
                values.push(match (serde.rename, rule) {
                    (Some(name), _) => name,
                    (None, Some(rule)) => {
                        rename(rule, &plain, true).map_err(|e| syn::Error::new_spanned(&variant.ident, e))?
                    }
                    (None, None) => plain,
                });
            }
            quote! {
                fn components(out: &mut #api::serde_json::Map<::std::string::String, #api::serde_json::Value>) {
                    let schema = #api::openapi::schema::describe(
                        #api::openapi::schema::string_enum(&[#(#values),*]),
                        #description,
                    );
                    out.insert(#component.into(), schema);
                }
            }
        }
        Data::Union(_) => return Err(syn::Error::new_spanned(&input.ident, "`ApiSchema` does not derive on unions")),
    };
    let ident = &input.ident;
    // A type parameter is documented through its own schema: each must implement `ApiSchema`.
    let mut generics = input.generics.clone();
    for param in input.generics.type_params() {
        let name = &param.ident;
        generics.make_where_clause().predicates.push(syn::parse_quote!(#name: #api::openapi::ApiSchema));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics #api::openapi::ApiSchema for #ident #ty_generics #where_clause {
            fn schema() -> #api::serde_json::Value {
                #api::openapi::schema::reference(#component)
            }
            #body
        }
    })
}

// The rules are tested against serde itself in `datahost-plugin-api` (`openapi::tests`): the same types derive
// `Serialize` and `ApiSchema`, and the names serde writes must be the names the schema lists.
