//! The records' columnar form: each [`Schema`] as an Arrow schema, and
//! [`ArrowRows`], which gathers records written through [`Cells`] into
//! Arrow record batches (for Parquet, the Arrow IPC stream and the Python
//! package).
//!
//! The types follow the one definition: integers stay integers of their
//! width, a vocabulary is dictionary-encoded with the vocabulary itself as
//! the dictionary (the same in every batch and every file, so a key means
//! the same word everywhere), lists are lists, structs are structs, tags a
//! map of strings, and an absent value is null. Columns only the columnar
//! form holds ([`Column::arrow_only`]) add dates, times and integers read
//! from well-known tags.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Date32Builder, Float64Builder, Int32Builder, ListBuilder,
    MapBuilder, PrimitiveBuilder, StringBuilder, Time32MillisecondBuilder, UInt8Builder,
    UInt32Builder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float64Type, Int32Type, Time32MillisecondType, UInt8Type, UInt32Type, UInt64Type,
};
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, DictionaryArray, ListArray, RecordBatch, StringArray,
    StructArray,
};
use arrow_buffer::{Buffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Fields, SchemaRef};

use super::period_cells;
use super::{Cells, Column, Format, Number, Schema, Type};
use crate::rules::time_control::Period;

/// The Arrow type of a column of `ty`.
fn data_type(ty: &Type) -> DataType {
    match ty {
        Type::Bool => DataType::Boolean,
        Type::UInt8 => DataType::UInt8,
        Type::UInt32 => DataType::UInt32,
        Type::UInt64 | Type::Key64 => DataType::UInt64,
        Type::Int32 => DataType::Int32,
        Type::Float64 => DataType::Float64,
        Type::Str => DataType::Utf8,
        Type::Vocab(_) => DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
        Type::Date => DataType::Date32,
        Type::Time => DataType::Time32(arrow_schema::TimeUnit::Millisecond),
        Type::Struct(schema) => DataType::Struct(struct_fields(schema)),
        // As the builders make them: `item` lists, `entries` maps.
        Type::List(_) | Type::Map => Builder::new(ty)
            .finish()
            .map_or(DataType::Null, |a| a.data_type().clone()),
    }
}

/// The Arrow field of `column`: nullable when the schema says it can be
/// null.
fn field(column: &Column) -> Field {
    Field::new(
        column.name,
        data_type(&column.ty),
        column.null_when.is_some(),
    )
}

/// The Arrow fields of `schema`'s columnar columns.
fn fields(schema: &Schema) -> Fields {
    schema
        .columns
        .iter()
        .filter(|c| c.is_in(Format::Arrow))
        .map(field)
        .collect()
}

/// The fields of a struct column: all nullable, since a null struct has
/// null children (a never-null child filled with a placeholder read back
/// from Parquet as a key into an empty dictionary, which pyarrow refused).
fn struct_fields(schema: &Schema) -> Fields {
    schema
        .columns
        .iter()
        .filter(|c| c.is_in(Format::Arrow))
        .map(|c| Field::new(c.name, data_type(&c.ty), true))
        .collect()
}

/// `schema` as an Arrow schema.
pub fn arrow_schema(schema: &Schema) -> SchemaRef {
    Arc::new(arrow_schema::Schema::new(fields(schema)))
}

/// The values of one column of a batch being gathered.
// One per column of a batch: their sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Builder {
    Bool(BooleanBuilder),
    UInt8(UInt8Builder),
    UInt32(UInt32Builder),
    UInt64(UInt64Builder),
    Int32(Int32Builder),
    Float64(Float64Builder),
    Str(StringBuilder),
    /// A list of numbers, each of which may be null.
    Int32s(ListBuilder<Int32Builder>),
    Float64s(ListBuilder<Float64Builder>),
    /// Keys into the vocabulary.
    Word {
        keys: Int32Builder,
        words: ArrayRef,
        index: HashMap<&'static str, i32>,
    },
    /// A list of strings.
    Words(Words),
    Map(MapBuilder<StringBuilder, StringBuilder>),
    Struct {
        fields: Fields,
        columns: &'static [Column],
        children: Vec<Builder>,
        valid: NullBufferBuilder,
    },
    /// A list of structs: the offsets of each list into `items`, a
    /// [`Builder::Struct`].
    Structs {
        item: Arc<Field>,
        offsets: Vec<i32>,
        valid: NullBufferBuilder,
        items: Box<Builder>,
    },
    Date(Date32Builder),
    Time(Time32MillisecondBuilder),
}

impl Builder {
    /// An empty builder for a column of `ty`.
    ///
    /// # Panics
    ///
    /// For a list of anything but strings: no columnar column is one (the
    /// tests build every schema).
    fn new(ty: &Type) -> Builder {
        match ty {
            Type::Bool => Builder::Bool(BooleanBuilder::new()),
            Type::UInt8 => Builder::UInt8(UInt8Builder::new()),
            Type::UInt32 => Builder::UInt32(UInt32Builder::new()),
            Type::UInt64 | Type::Key64 => Builder::UInt64(UInt64Builder::new()),
            Type::Int32 => Builder::Int32(Int32Builder::new()),
            Type::Float64 => Builder::Float64(Float64Builder::new()),
            Type::Str => Builder::Str(StringBuilder::new()),
            Type::List(Type::Int32) => Builder::Int32s(ListBuilder::new(Int32Builder::new())),
            Type::List(Type::Float64) => Builder::Float64s(ListBuilder::new(Float64Builder::new())),
            Type::Vocab(words) => {
                let words = words();
                let index = words
                    .iter()
                    .enumerate()
                    .map(|(i, w)| (*w, i32::try_from(i).expect("a small vocabulary")))
                    .collect();
                Builder::Word {
                    keys: Int32Builder::new(),
                    words: Arc::new(StringArray::from(words)),
                    index,
                }
            }
            Type::List(Type::Str) => Builder::Words(Words::default()),
            Type::List(item @ Type::Struct(_)) => Builder::Structs {
                item: Arc::new(Field::new("item", data_type(item), true)),
                offsets: vec![0],
                valid: NullBufferBuilder::new(0),
                items: Box::new(Builder::new(item)),
            },
            Type::List(other) => panic!("no columnar list of {}", other.name()),
            Type::Map => Builder::Map(MapBuilder::new(
                None,
                StringBuilder::new(),
                StringBuilder::new(),
            )),
            Type::Struct(schema) => {
                let columns = schema.columns;
                Builder::Struct {
                    fields: struct_fields(schema),
                    columns,
                    children: columns
                        .iter()
                        .filter(|c| c.is_in(Format::Arrow))
                        .map(|c| Builder::new(&c.ty))
                        .collect(),
                    valid: NullBufferBuilder::new(0),
                }
            }
            Type::Date => Builder::Date(Date32Builder::new()),
            Type::Time => Builder::Time(Time32MillisecondBuilder::new()),
        }
    }

    /// Appends a null.
    fn null(&mut self) {
        match self {
            Builder::Bool(b) => b.append_null(),
            Builder::UInt8(b) => b.append_null(),
            Builder::UInt32(b) => b.append_null(),
            Builder::UInt64(b) => b.append_null(),
            Builder::Int32(b) => b.append_null(),
            Builder::Float64(b) => b.append_null(),
            Builder::Int32s(b) => b.append_null(),
            Builder::Float64s(b) => b.append_null(),
            Builder::Str(b) => b.append_null(),
            Builder::Word { keys, .. } => keys.append_null(),
            Builder::Words(b) => b.end(false),
            Builder::Map(b) => {
                // A map builder appends a null map only after its (no) entries.
                let _ = b.append(false);
            }
            Builder::Struct {
                children, valid, ..
            } => {
                for c in children {
                    c.null();
                }
                valid.append_null();
            }
            Builder::Structs { offsets, valid, .. } => {
                offsets.push(*offsets.last().expect("offsets start at 0"));
                valid.append_null();
            }
            Builder::Date(b) => b.append_null(),
            Builder::Time(b) => b.append_null(),
        }
    }

    /// Appends one struct (of a [`Builder::Struct`]) whose fields `fill`
    /// writes.
    fn append_struct(&mut self, fill: impl FnOnce(&mut ArrowRow<'_>)) {
        match self {
            Builder::Struct {
                columns,
                children,
                valid,
                ..
            } => {
                let mut row = ArrowRow {
                    columns,
                    builders: children,
                    next: 0,
                    at: 0,
                    rows: None,
                };
                fill(&mut row);
                row.finish();
                valid.append_non_null();
            }
            b => {
                debug_assert!(false, "a struct for a column of another type");
                b.null();
            }
        }
    }

    /// Ends a list of structs of `items` items (a [`Builder::Structs`]
    /// whose items were appended).
    fn end_structs(&mut self, items: usize) {
        if let Builder::Structs { offsets, valid, .. } = self {
            let last = *offsets.last().expect("offsets start at 0");
            offsets.push(last + i32::try_from(items).unwrap_or(i32::MAX));
            valid.append_non_null();
        }
    }

    /// Appends a string, a word, or null.
    fn text(&mut self, value: Option<&str>) {
        match (self, value) {
            (Builder::Str(b), v) => b.append_option(v),
            (Builder::Word { keys, index, .. }, Some(w)) => {
                // A word outside the vocabulary would be a bug; it is null
                // rather than a wrong key.
                debug_assert!(index.contains_key(w), "`{w}` is not in the vocabulary");
                keys.append_option(index.get(w).copied());
            }
            (b, None) => b.null(),
            (_, Some(_)) => debug_assert!(false, "text for a column of another type"),
        }
    }

    fn uint(&mut self, value: Option<u64>) {
        match self {
            Builder::UInt8(b) => b.append_option(value.and_then(|v| u8::try_from(v).ok())),
            Builder::UInt32(b) => b.append_option(value.and_then(|v| u32::try_from(v).ok())),
            Builder::UInt64(b) => b.append_option(value),
            b => {
                debug_assert!(false, "an integer for a column of another type");
                b.null();
            }
        }
    }

    /// The column's values so far, as an array; the builder starts again
    /// empty.
    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        Ok(match self {
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::UInt8(b) => Arc::new(b.finish()),
            Builder::UInt32(b) => Arc::new(b.finish()),
            Builder::UInt64(b) => Arc::new(b.finish()),
            Builder::Int32(b) => Arc::new(b.finish()),
            Builder::Float64(b) => Arc::new(b.finish()),
            Builder::Int32s(b) => Arc::new(b.finish()),
            Builder::Float64s(b) => Arc::new(b.finish()),
            Builder::Str(b) => Arc::new(b.finish()),
            Builder::Word { keys, words, .. } => Arc::new(DictionaryArray::<Int32Type>::try_new(
                keys.finish(),
                Arc::clone(words),
            )?),
            Builder::Words(b) => b.finish()?,
            Builder::Map(b) => Arc::new(b.finish()),
            Builder::Struct {
                fields,
                children,
                valid,
                ..
            } => {
                let arrays = children
                    .iter_mut()
                    .map(Builder::finish)
                    .collect::<Result<Vec<_>, _>>()?;
                Arc::new(StructArray::try_new(
                    fields.clone(),
                    arrays,
                    valid.finish(),
                )?)
            }
            Builder::Structs {
                item,
                offsets,
                valid,
                items,
            } => {
                let values = items.finish()?;
                let offsets = std::mem::replace(offsets, vec![0]);
                Arc::new(ListArray::try_new(
                    Arc::clone(item),
                    arrow_buffer::OffsetBuffer::new(offsets.into()),
                    values,
                    valid.finish(),
                )?)
            }
            Builder::Date(b) => Arc::new(b.finish()),
            Builder::Time(b) => Arc::new(b.finish()),
        })
    }

    fn len(&self) -> usize {
        match self {
            Builder::Bool(b) => b.len(),
            Builder::UInt8(b) => b.len(),
            Builder::UInt32(b) => b.len(),
            Builder::UInt64(b) => b.len(),
            Builder::Int32(b) => b.len(),
            Builder::Float64(b) => b.len(),
            Builder::Int32s(b) => b.len(),
            Builder::Float64s(b) => b.len(),
            Builder::Str(b) => b.len(),
            Builder::Word { keys, .. } => keys.len(),
            Builder::Words(b) => b.len(),
            Builder::Map(b) => b.len(),
            Builder::Struct { valid, .. } => valid.len(),
            Builder::Structs { valid, .. } => valid.len(),
            Builder::Date(b) => b.len(),
            Builder::Time(b) => b.len(),
        }
    }
}

/// A list-of-strings column gathered in plain buffers (the builders of
/// arrow-rs cost twice as much per move of `uci`), in the layout of the
/// arrays they become: a batch's offsets are handed over without a copy,
/// and the next batch's buffers start as large as the last one's.
struct Words {
    /// The strings' bytes, one after another.
    bytes: Vec<u8>,
    /// Where each string ends in `bytes` (after a leading 0). Past 2 GiB
    /// of bytes the offsets wrap; [`Words::finish`] refuses such a batch
    /// by the length of `bytes`, so a wrapped offset is never used.
    ends: Vec<i32>,
    /// Where each list ends in `ends` (after a leading 0).
    lists: Vec<i32>,
    valid: NullBufferBuilder,
}

impl Default for Words {
    fn default() -> Words {
        Words::with_capacity(0, 0, 0)
    }
}

impl Words {
    fn with_capacity(bytes: usize, items: usize, lists: usize) -> Words {
        let mut ends = Vec::with_capacity(items + 1);
        ends.push(0);
        let mut starts = Vec::with_capacity(lists + 1);
        starts.push(0);
        Words {
            bytes: Vec::with_capacity(bytes),
            ends,
            lists: starts,
            valid: NullBufferBuilder::new(lists),
        }
    }

    /// Adds a string to the list being made. `text` must be UTF-8, whole
    /// (`Words::finish` relies on it): the only way bytes go in.
    fn push(&mut self, text: &[u8]) {
        self.bytes.extend_from_slice(text);
        #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
        self.ends.push(self.bytes.len() as i32);
    }

    /// Ends the list being made (a null when not `valid`).
    fn end(&mut self, valid: bool) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
        self.lists.push((self.ends.len() - 1) as i32);
        self.valid.append(valid);
    }

    fn len(&self) -> usize {
        self.lists.len() - 1
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let next = Words::with_capacity(self.bytes.len(), self.ends.len(), self.lists.len());
        let Words {
            bytes,
            ends,
            lists,
            valid,
        } = std::mem::replace(self, next);
        if i32::try_from(bytes.len()).is_err() {
            return Err(ArrowError::ComputeError(
                "a batch of over 2 GiB of moves".into(),
            ));
        }
        let offsets = |v: Vec<i32>| OffsetBuffer::new(ScalarBuffer::from(v));
        let mut valid = valid;
        let (ends, bytes) = (offsets(ends), Buffer::from_vec(bytes));
        #[cfg(debug_assertions)]
        StringArray::try_new(ends.clone(), bytes.clone(), None)?;
        // SAFETY: `bytes` only grows, by `Words::push` alone (a private
        // method of this module), and each call appends one whole string
        // that is UTF-8: `spaced` cuts a `&str` at ASCII spaces only,
        // `copy` takes a `&str` from another batch, `ArrowRow::words` passes
        // each item through `String::from_utf8_lossy`. So `bytes` is UTF-8,
        // each end is a character boundary, and the last end is
        // `bytes.len()`; `OffsetBuffer::new` checked that the ends rise from
        // 0, and the length check above that none wrapped. `try_new` would
        // check it all again (the UTF-8 of the whole buffer, then each
        // offset): about 20 instructions a move, 1 % of a columnar run.
        // Debug builds, and so the tests, still check.
        let values = unsafe { StringArray::new_unchecked(ends, bytes, None) };
        Ok(Arc::new(ListArray::try_new(
            Arc::new(Field::new_list_field(DataType::Utf8, true)),
            offsets(lists),
            Arc::new(values),
            valid.finish(),
        )?))
    }
}

/// Records of one schema gathered into record batches.
pub struct ArrowRows {
    schema: SchemaRef,
    columns: &'static [Column],
    builders: Vec<Builder>,
    rows: usize,
}

impl ArrowRows {
    /// No records yet, of `schema`.
    pub fn new(schema: &Schema) -> ArrowRows {
        ArrowRows {
            schema: arrow_schema(schema),
            columns: schema.columns,
            builders: schema
                .columns
                .iter()
                .filter(|c| c.is_in(Format::Arrow))
                .map(|c| Builder::new(&c.ty))
                .collect(),
            rows: 0,
        }
    }

    /// The Arrow schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The records gathered since the last batch.
    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// A record: its values are written through the row, in column order,
    /// and [`ArrowRow::finish`] ends it.
    pub fn row(&mut self) -> ArrowRow<'_> {
        ArrowRow {
            columns: self.columns,
            builders: &mut self.builders,
            next: 0,
            at: 0,
            rows: Some(&mut self.rows),
        }
    }

    /// The records gathered so far as one batch; the rows start again
    /// empty.
    ///
    /// # Errors
    ///
    /// When a record broke the schema (a null in a column that is never
    /// null): a bug, reported rather than written.
    pub fn batch(&mut self) -> Result<RecordBatch, ArrowError> {
        let arrays = self
            .builders
            .iter_mut()
            .map(Builder::finish)
            .collect::<Result<Vec<_>, _>>()?;
        self.rows = 0;
        RecordBatch::try_new(Arc::clone(&self.schema), arrays)
    }
}

impl ArrowRows {
    /// Checks that `batch` has this schema's columns, by name and in
    /// order (another run's output is read back: `pgnkit merge`).
    ///
    /// # Errors
    ///
    /// Naming the first column that differs.
    pub fn check_columns(&self, batch: &RecordBatch) -> Result<(), String> {
        let theirs: Vec<&str> = batch
            .schema_ref()
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        let ours: Vec<&str> = self
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        if theirs != ours {
            let at = ours.iter().zip(&theirs).position(|(a, b)| a != b);
            return Err(match at {
                Some(i) => format!(
                    "column {} is `{}` where pgnkit writes `{}`",
                    i + 1,
                    theirs[i],
                    ours[i]
                ),
                None => format!(
                    "{} columns where pgnkit writes {}",
                    theirs.len(),
                    ours.len()
                ),
            });
        }
        Ok(())
    }

    /// Appends row `row` of `batch` (checked with
    /// [`ArrowRows::check_columns`]) as a record, value by value, so that
    /// what is written is this schema's exact form whatever the reader
    /// made of it (dictionaries, for one).
    ///
    /// # Errors
    ///
    /// A value of the wrong type, or a word outside its vocabulary.
    pub fn push_from(&mut self, batch: &RecordBatch, row: usize) -> Result<(), String> {
        for ((builder, column), field) in self
            .builders
            .iter_mut()
            .zip(batch.columns())
            .zip(self.schema.fields())
        {
            if column.is_null(row) && !field.is_nullable() {
                return Err(format!(
                    "column `{}`: a null where pgnkit writes none",
                    field.name()
                ));
            }
            builder
                .copy(column.as_ref(), row)
                .map_err(|e| format!("column `{}`: {e}", field.name()))?;
        }
        self.rows += 1;
        Ok(())
    }
}

/// The text of a string or dictionary-of-strings value.
fn text_of(array: &dyn Array, row: usize) -> Result<&str, String> {
    if let Some(s) = array.as_string_opt::<i32>() {
        return Ok(s.value(row));
    }
    if let Some(d) = array.as_dictionary_opt::<Int32Type>() {
        let key = usize::try_from(d.keys().value(row)).map_err(|_| "a negative key".to_owned())?;
        let values = d
            .values()
            .as_string_opt::<i32>()
            .ok_or("a dictionary of no strings")?;
        if key >= values.len() {
            return Err("a key outside its dictionary".to_owned());
        }
        return Ok(values.value(key));
    }
    Err(format!("{} where a string was expected", array.data_type()))
}

impl Builder {
    /// Appends the value at `row` of `array`, of this builder's type.
    fn copy(&mut self, array: &dyn Array, row: usize) -> Result<(), String> {
        if row >= array.len() {
            return Err("a short column".to_owned());
        }
        if array.is_null(row) {
            self.null();
            return Ok(());
        }
        let wrong = || format!("{} where pgnkit writes another type", array.data_type());
        match self {
            Builder::Bool(b) => {
                b.append_value(array.as_boolean_opt().ok_or_else(wrong)?.value(row))
            }
            Builder::UInt8(b) => b.append_value(value::<UInt8Type>(array, row).ok_or_else(wrong)?),
            Builder::UInt32(b) => {
                b.append_value(value::<UInt32Type>(array, row).ok_or_else(wrong)?)
            }
            Builder::UInt64(b) => {
                b.append_value(value::<UInt64Type>(array, row).ok_or_else(wrong)?)
            }
            Builder::Int32(b) => b.append_value(value::<Int32Type>(array, row).ok_or_else(wrong)?),
            Builder::Float64(b) => {
                b.append_value(value::<Float64Type>(array, row).ok_or_else(wrong)?)
            }
            Builder::Int32s(b) => copy_numbers(b, array, row).ok_or_else(wrong)?,
            Builder::Float64s(b) => copy_numbers(b, array, row).ok_or_else(wrong)?,
            Builder::Str(b) => b.append_value(text_of(array, row)?),
            Builder::Word { keys, index, .. } => {
                let word = text_of(array, row)?;
                let key = index.get(word).ok_or_else(|| {
                    format!("`{}` is not a word of the column", word.escape_debug())
                })?;
                keys.append_value(*key);
            }
            Builder::Words(b) => {
                let list = array.as_list_opt::<i32>().ok_or_else(wrong)?.value(row);
                for i in 0..list.len() {
                    if list.is_null(i) {
                        return Err("a null in a list".to_owned());
                    }
                    b.push(text_of(list.as_ref(), i)?.as_bytes());
                }
                b.end(true);
            }
            Builder::Map(b) => {
                let entries = array.as_map_opt().ok_or_else(wrong)?.value(row);
                let (k, v) = (entries.column(0), entries.column(1));
                for i in 0..entries.len() {
                    if k.is_null(i) {
                        return Err("a null tag name".to_owned());
                    }
                    b.keys().append_value(text_of(k.as_ref(), i)?);
                    if v.is_null(i) {
                        b.values().append_null();
                    } else {
                        b.values().append_value(text_of(v.as_ref(), i)?);
                    }
                }
                b.append(true).map_err(|e| e.to_string())?;
            }
            Builder::Struct {
                fields,
                children,
                valid,
                ..
            } => {
                let s = array.as_struct_opt().ok_or_else(wrong)?;
                if s.num_columns() != children.len()
                    || s.fields()
                        .iter()
                        .zip(fields.iter())
                        .any(|(a, b)| a.name() != b.name())
                {
                    return Err("a struct of other fields".to_owned());
                }
                for (child, column) in children.iter_mut().zip(s.columns()) {
                    child.copy(column.as_ref(), row)?;
                }
                valid.append_non_null();
            }
            Builder::Structs { items, .. } => {
                let list = array.as_list_opt::<i32>().ok_or_else(wrong)?;
                let range =
                    list.value_offsets()[row] as usize..list.value_offsets()[row + 1] as usize;
                let n = range.len();
                for i in range {
                    items.copy(list.values().as_ref(), i)?;
                }
                self.end_structs(n);
            }
            Builder::Date(b) => b.append_value(value::<Date32Type>(array, row).ok_or_else(wrong)?),
            Builder::Time(b) => {
                b.append_value(value::<Time32MillisecondType>(array, row).ok_or_else(wrong)?)
            }
        }
        Ok(())
    }
}

/// The value at `row` of a primitive `array` of type `T`, if it is one.
fn value<T: ArrowPrimitiveType>(array: &dyn Array, row: usize) -> Option<T::Native> {
    Some(array.as_primitive_opt::<T>()?.value(row))
}

/// Appends the list at `row` of `array`, a list of `T` (with nulls), if
/// it is one.
fn copy_numbers<T: ArrowPrimitiveType>(
    b: &mut ListBuilder<PrimitiveBuilder<T>>,
    array: &dyn Array,
    row: usize,
) -> Option<()> {
    let list = array.as_list_opt::<i32>()?.value(row);
    b.values().extend(list.as_primitive_opt::<T>()?.iter());
    b.append(true);
    Some(())
}

/// One record being written into [`ArrowRows`] (or a struct value inside
/// one): each call fills the next columnar column.
pub struct ArrowRow<'r> {
    columns: &'static [Column],
    builders: &'r mut [Builder],
    /// The next column of `columns` to look at.
    next: usize,
    /// The builder of the next columnar column.
    at: usize,
    /// The rows to count the record in; `None` inside a struct.
    rows: Option<&'r mut usize>,
}

impl ArrowRow<'_> {
    /// The builder of the next columnar column.
    fn next(&mut self) -> &mut Builder {
        while self
            .columns
            .get(self.next)
            .is_some_and(|c| !c.is_in(Format::Arrow))
        {
            self.next += 1;
        }
        debug_assert!(self.next < self.columns.len(), "more values than columns");
        self.next += 1;
        self.at += 1;
        &mut self.builders[self.at - 1]
    }

    /// The next value is a date (days since 1970-01-01), or null.
    pub fn date(&mut self, days: Option<i32>) {
        match self.next() {
            Builder::Date(b) => b.append_option(days),
            b => {
                debug_assert!(false, "a date for a column of another type");
                b.null();
            }
        }
    }

    /// The next value is a time of day (seconds since midnight), or null.
    pub fn time(&mut self, seconds: Option<i32>) {
        match self.next() {
            Builder::Time(b) => b.append_option(seconds.map(|s| s * 1000)),
            b => {
                debug_assert!(false, "a time for a column of another type");
                b.null();
            }
        }
    }

    /// The next value is a list of the words of `text`, separated by
    /// single spaces (`e2e4 e7e5`: a move list as CSV holds it), or null.
    pub fn spaced(&mut self, text: Option<&str>) {
        match (self.next(), text) {
            (Builder::Words(w), Some(text)) => {
                // A word of a move list is nearly always four bytes (`e2e4`;
                // a promotion five): a four-byte word followed by a space
                // or the end goes in as one fixed-size value, without a
                // search for its end or a copy call; any other word is
                // found with `memchr`. Empty words (two spaces) are none.
                let t = text.as_bytes();
                w.bytes.reserve(t.len());
                let mut i = 0;
                while i < t.len() {
                    if let Some(&[a, b, c, d]) = t.get(i..i + 4)
                        && t.get(i + 4).is_none_or(|&e| e == b' ')
                        && ![a, b, c, d].contains(&b' ')
                    {
                        w.push(&[a, b, c, d]);
                        i += 5;
                        continue;
                    }
                    let end = memchr::memchr(b' ', &t[i..]).map_or(t.len(), |k| i + k);
                    if end > i {
                        w.push(&t[i..end]);
                    }
                    i = end + 1;
                }
                w.end(true);
            }
            (b, _) => b.null(),
        }
    }

    /// The next value is a map of strings, entries in the given order.
    pub fn map<'s>(&mut self, entries: impl Iterator<Item = (&'s str, Option<&'s str>)>) {
        match self.next() {
            Builder::Map(b) => {
                for (k, v) in entries {
                    b.keys().append_value(k);
                    b.values().append_option(v);
                }
                // Keys and values were appended alike: this cannot fail.
                let _ = b.append(true);
            }
            b => {
                debug_assert!(false, "a map for a column of another type");
                b.null();
            }
        }
    }

    /// The next value is a struct of `schema` whose fields `inner` writes,
    /// or null (as [`JsonObject::object`](super::JsonObject::object)).
    pub fn object(&mut self, schema: &Schema, inner: Option<impl FnOnce(&mut ArrowRow<'_>)>) {
        let b = self.next();
        match inner {
            Some(inner) => {
                debug_assert!(
                    matches!(b, Builder::Struct { columns, .. } if columns
                        .iter()
                        .map(|c| c.name)
                        .eq(schema.columns.iter().map(|c| c.name))),
                    "a struct of another schema"
                );
                b.append_struct(inner);
            }
            None => b.null(),
        }
    }

    /// Ends the record.
    pub fn finish(self) {
        debug_assert!(
            self.columns[self.next..]
                .iter()
                .all(|c| !c.is_in(Format::Arrow)),
            "fewer values than columns"
        );
        debug_assert!(
            self.builders
                .iter()
                .all(|b| b.len() == self.builders[0].len()),
            "columns of unequal length"
        );
        if let Some(rows) = self.rows {
            *rows += 1;
        }
    }
}

impl Cells for ArrowRow<'_> {
    fn str(&mut self, value: &str) {
        self.next().text(Some(value));
    }

    fn opt_str(&mut self, value: Option<&str>) {
        self.next().text(value);
    }

    fn word(&mut self, value: Option<&str>) {
        self.next().text(value);
    }

    fn uint(&mut self, value: Option<u64>) {
        self.next().uint(value);
    }

    fn bool(&mut self, value: bool) {
        match self.next() {
            Builder::Bool(b) => b.append_value(value),
            b => {
                debug_assert!(false, "a bool for a column of another type");
                b.null();
            }
        }
    }

    fn words<T>(&mut self, items: Option<&[T]>, item: impl Fn(&T, &mut Vec<u8>)) {
        match (self.next(), items) {
            (Builder::Words(b), Some(items)) => {
                // Each item is written into a buffer of its own, never into
                // the strings already made (which `Words::finish` trusts to
                // be UTF-8), and goes in as text.
                let mut word = Vec::new();
                for x in items {
                    word.clear();
                    item(x, &mut word);
                    // Words are ASCII; anything else is kept readable.
                    b.push(String::from_utf8_lossy(&word).as_bytes());
                }
                b.end(true);
            }
            (b, _) => b.null(),
        }
    }

    fn tags(&mut self, names: &[String], values: &[Option<&str>]) {
        self.map(names.iter().map(String::as_str).zip(values.iter().copied()));
    }

    fn number(&mut self, value: Option<Number>) {
        match (self.next(), value) {
            (Builder::Int32(b), Some(Number::Int(n))) => b.append_value(n),
            (Builder::Float64(b), Some(n)) => b.append_value(n.as_f64()),
            (b, None) => b.null(),
            (b, Some(_)) => {
                debug_assert!(false, "a number for a column of another type");
                b.null();
            }
        }
    }

    fn numbers(&mut self, items: Option<&[Option<Number>]>) {
        match (self.next(), items) {
            (Builder::Int32s(b), Some(items)) => {
                for x in items {
                    b.values().append_option(match x {
                        Some(Number::Int(n)) => Some(*n),
                        _ => None,
                    });
                }
                b.append(true);
            }
            (Builder::Float64s(b), Some(items)) => {
                for x in items {
                    b.values().append_option(x.map(Number::as_f64));
                }
                b.append(true);
            }
            (b, _) => b.null(),
        }
    }

    fn periods(&mut self, items: Option<&[Period]>) {
        let b = self.next();
        let Some(items) = items.filter(|_| matches!(b, Builder::Structs { .. })) else {
            b.null();
            return;
        };
        if let Builder::Structs { items: inner, .. } = b {
            for p in items {
                inner.append_struct(|row| period_cells(p, row));
            }
        }
        b.end_structs(items.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_record_has_a_columnar_form() {
        for schema in super::super::ALL {
            let mut rows = ArrowRows::new(schema);
            let batch = rows.batch().unwrap();
            assert_eq!(batch.num_rows(), 0);
            assert_eq!(
                batch.schema().fields().len(),
                schema
                    .columns
                    .iter()
                    .filter(|c| c.is_in(Format::Arrow))
                    .count()
            );
        }
    }

    /// `spaced` makes the same items as splitting at spaces, whatever the
    /// words' lengths (the four-byte fast path and the bytewise one) and
    /// however many spaces stand between, before or after them.
    #[test]
    fn spaced_words_are_the_words_between_spaces() {
        let texts = [
            "e2e4 e7e5 g1f3",
            "e7e8q e2e4",
            "e2e4 e7e8q",
            "a7a8n",
            "  e2e4   e7e5  ",
            "abc",
            "abcd",
            "abcde",
            "ab cd efgh ijklm n",
            "",
            " ",
            "e2e4",
            "é2e4 e7e5",
            "abcd  efgh",
            "abcdé fghi",
            "é",
            "ab é cd ééé",
            " abc ",
        ];
        // And random texts of four-byte words and others, with single and
        // double spaces, at the start and the end too.
        let pieces = ["e2e4", "e7e8q", " ", "  ", "a", "é", "h7h8", "b1c3 "];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let random: Vec<String> = (0..500)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (0..x % 12)
                    .map(|k| pieces[((x >> (3 * k)) % 8) as usize])
                    .collect()
            })
            .collect();
        let texts: Vec<&str> = texts
            .into_iter()
            .chain(random.iter().map(String::as_str))
            .collect();
        let lists = list_column(texts.len(), |i, row| row.spaced(Some(texts[i])));
        assert_eq!(lists.len(), texts.len());
        for (got, text) in lists.iter().zip(&texts) {
            let want: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
            assert_eq!(got, &want, "{text:?}");
        }
    }

    /// `words` makes each item the text its closure writes (bytes that are
    /// not UTF-8 made readable), into a buffer of the item's own: a closure
    /// that empties or rewrites what it was handed cannot reach the items
    /// before it, which `Words::finish` trusts to be UTF-8.
    #[test]
    fn words_are_each_item_as_text() {
        let items: [&[u8]; 5] = [b"e2e4", "é".as_bytes(), b"\xff\xfe", b"", b"h7h8q"];
        let lists = list_column(2, |_, row| {
            row.words(Some(&items), |item: &&[u8], out: &mut Vec<u8>| {
                // What was handed over is empty; clearing it, or writing
                // over its last byte, touches nothing else.
                assert!(out.is_empty());
                out.clear();
                out.extend_from_slice(b"zz");
                if let Some(last) = out.last_mut() {
                    *last = 0xff;
                }
                out.clear();
                out.extend_from_slice(item);
            });
        });
        assert_eq!(lists.len(), 2);
        for got in &lists {
            assert_eq!(got, &["e2e4", "é", "\u{fffd}\u{fffd}", "", "h7h8q"]);
        }
    }

    /// The items of a column of string lists, one row per call of `fill`
    /// (`rows` of them), as `Words::finish` makes them.
    fn list_column(
        rows: usize,
        mut fill: impl FnMut(usize, &mut ArrowRow<'_>),
    ) -> Vec<Vec<String>> {
        static COLUMNS: [Column; 1] = [Column::new("moves", Type::List(&Type::Str), "moves")];
        let mut builders = vec![Builder::new(&COLUMNS[0].ty)];
        for i in 0..rows {
            let mut row = ArrowRow {
                columns: &COLUMNS,
                builders: &mut builders,
                next: 0,
                at: 0,
                rows: None,
            };
            fill(i, &mut row);
        }
        let list = builders[0].finish().unwrap();
        let list = list.as_any().downcast_ref::<ListArray>().unwrap();
        (0..list.len())
            .map(|i| {
                let items = list.value(i);
                let items = items.as_any().downcast_ref::<StringArray>().unwrap();
                items.iter().map(|s| s.unwrap().to_owned()).collect()
            })
            .collect()
    }
}
